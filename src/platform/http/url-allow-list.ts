import { BlockList, isIP } from 'node:net';
import { unmapIpv4 } from './ip-address';

/**
 * Which partner URLs (insurer systems) the gateway may call: an SSRF guard. Entries of the comma list:
 * - a URL prefix, `https://quotes.insurer.example/api`: matches that URL and everything below it;
 * - a host pattern, `insurer.example` or `*.insurer.example` (any subdomain), with an optional `:port`;
 * - an IP address or CIDR range, `10.20.0.5` or `10.20.0.0/16`: matches URLs with such an address as host,
 *   and is the only way to allow a private, loopback or link-local address in production.
 * An empty list allows every host. In production, private, loopback and link-local addresses are refused
 * unless listed as addresses, both for the URL's host and for every address the host resolves to.
 */
export class UrlAllowList {
  private readonly prefixes: string[] = [];
  private readonly hosts: { pattern: string; wildcard: boolean; port?: string }[] = [];
  private readonly listed = new BlockList();
  private hasAddresses = false;

  constructor(
    readonly entries: readonly string[],
    /** Refuse private, loopback and link-local addresses that are not listed. */
    readonly refusePrivate: boolean,
  ) {
    for (const entry of entries) this.add(entry);
  }

  /** Parses `INSURER_URL_ALLOW`; throws with the offending entry. */
  static parse(raw: string | undefined, refusePrivate: boolean): UrlAllowList {
    const entries = (raw ?? '').split(',').map((entry) => entry.trim()).filter(Boolean);
    return new UrlAllowList(entries, refusePrivate);
  }

  private add(entry: string): void {
    if (/^https?:\/\//i.test(entry)) {
      const url = new URL(entry); // throws on garbage
      if (url.search || url.hash || url.username || url.password) throw new Error(`"${entry}" must be a plain URL prefix`);
      this.prefixes.push(url.href.replace(/\/+$/, ''));
      return;
    }
    const [address, bits] = entry.split('/');
    const family = isIP(address);
    if (family !== 0) {
      const type = family === 4 ? 'ipv4' : 'ipv6';
      const prefix = bits === undefined ? (family === 4 ? 32 : 128) : Number(bits);
      if (!/^\d+$/.test(bits ?? '0') || prefix > (family === 4 ? 32 : 128)) throw new Error(`"${entry}" has a bad prefix length`);
      this.listed.addSubnet(address, prefix, type);
      this.hasAddresses = true;
      return;
    }
    const match = /^(\*\.)?([a-z0-9-]+(?:\.[a-z0-9-]+)*)(?::(\d{1,5}))?$/i.exec(entry);
    if (!match) throw new Error(`"${entry}" is neither a URL prefix, a host pattern nor an IP address or range`);
    this.hosts.push({ wildcard: Boolean(match[1]), pattern: match[2].toLowerCase(), port: match[3] });
  }

  private isListedAddress(address: string): boolean {
    const family = isIP(address);
    return this.hasAddresses && family !== 0 && this.listed.check(address, family === 4 ? 'ipv4' : 'ipv6');
  }

  /** Why the URL may not be called, or undefined when it may (its host's addresses are checked at call time). */
  refusal(value: string): string | undefined {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return 'not a URL';
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'not an http(s) URL';
    const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (isIP(host) !== 0 && !this.addressAllowed(host)) return `the address ${host} is private, loopback or link-local`;
    if (this.entries.length === 0) return undefined;
    const href = url.href;
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    const allowed =
      this.prefixes.some((prefix) => href === prefix || href.startsWith(`${prefix}/`)) ||
      this.hosts.some(
        (entry) => (entry.wildcard ? host.endsWith(`.${entry.pattern}`) : host === entry.pattern) && (entry.port === undefined || entry.port === port),
      ) ||
      this.isListedAddress(host);
    return allowed ? undefined : 'the URL matches no INSURER_URL_ALLOW entry';
  }

  /** Whether a (resolved) address may be connected to. */
  addressAllowed(address: string): boolean {
    if (!this.refusePrivate || this.isListedAddress(address)) return true;
    return !isPrivateAddress(address);
  }
}

const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv6');
}

/** Loopback, private (RFC 1918, unique local, carrier-grade NAT), link-local and unspecified addresses. */
function isPrivateAddress(given: string): boolean {
  const address = unmapIpv4(given);
  const family = isIP(address);
  if (family === 0) return true; // not an address: refuse rather than guess
  return PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}
