import { BlockList, isIP } from 'node:net';
import { specialPurposeOf, unmapIpv4 } from './ip-address';
import { parseHttpUrl } from '../validation/rules';

/**
 * Which partner URLs (insurer systems, webhook endpoints) the gateway may call: an SSRF guard. Entries of the comma
 * list (`INSURER_URL_ALLOW`, `WEBHOOK_URL_ALLOW`):
 * - a URL prefix, `https://quotes.insurer.example/api`: matches that URL and everything below it;
 * - a host pattern, `insurer.example` or `*.insurer.example` (any subdomain), with an optional `:port`;
 * - an IP address or CIDR range, `10.20.0.5` or `10.20.0.0/16`: matches URLs with such an address as host.
 * URL prefixes, host patterns and public addresses make the list an allow-list: only what they match may be called.
 * Without any, every public host may. A special-purpose address or range (private, loopback, link-local, ...,
 * ip-address.ts) is an exception to the refusal of special-purpose addresses, not an allow-list: listing
 * `127.0.0.1` lets it be called and leaves every public host callable. Where special-purpose addresses are refused,
 * both the URL's host and every address the host resolves to are checked.
 */
export class UrlAllowList {
  private readonly prefixes: string[] = [];
  private readonly hosts: { pattern: string; wildcard: boolean; port?: string }[] = [];
  private readonly listed = new BlockList();
  private hasAddresses = false;
  /** Whether some entry names public hosts: then only listed URLs, hosts and addresses may be called. */
  private restricts = false;

  constructor(
    /** The variable the entries come from, named in refusals. */
    readonly variable: string,
    readonly entries: readonly string[],
    /** Refuse special-purpose addresses that are not listed. */
    readonly refusePrivate: boolean,
  ) {
    for (const entry of entries) this.add(entry);
  }

  /** Parses a comma list; throws with the offending entry. */
  static parse(variable: string, raw: string | undefined, refusePrivate: boolean): UrlAllowList {
    const entries = (raw ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean);
    return new UrlAllowList(variable, entries, refusePrivate);
  }

  private add(entry: string): void {
    if (/^https?:\/\//i.test(entry)) {
      const url = new URL(entry); // throws on garbage
      if (url.search || url.hash || url.username || url.password) throw new Error(`"${entry}" must be a plain URL prefix`);
      this.prefixes.push(url.href.replace(/\/+$/, ''));
      this.restricts = true;
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
      // A range is special-purpose by its first address, as its range is in the registries.
      if (specialPurposeOf(address) === undefined) this.restricts = true;
      return;
    }
    const match = /^(\*\.)?([a-z0-9-]+(?:\.[a-z0-9-]+)*)(?::(\d{1,5}))?$/i.exec(entry);
    if (!match) throw new Error(`"${entry}" is neither a URL prefix, a host pattern nor an IP address or range`);
    this.hosts.push({ wildcard: Boolean(match[1]), pattern: match[2].toLowerCase(), port: match[3] });
    this.restricts = true;
  }

  private isListedAddress(given: string): boolean {
    // A dual-stack socket reports an IPv4 peer as ::ffff:a.b.c.d: the listed IPv4 address it is.
    const address = unmapIpv4(given);
    const family = isIP(address);
    return this.hasAddresses && family !== 0 && this.listed.check(address, family === 4 ? 'ipv4' : 'ipv6');
  }

  /** Why the URL may not be called, or undefined when it may (its host's addresses are checked at call time). */
  refusal(value: string): string | undefined {
    const url = parseHttpUrl(value);
    if (!url) return 'not an absolute http(s) URL';
    const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (isIP(host) !== 0 && !this.addressAllowed(host)) {
      return `the address ${host} is special-purpose (${specialPurposeOf(host)}) and not listed in ${this.variable}`;
    }
    if (!this.restricts) return undefined;
    const href = url.href;
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    const allowed =
      this.prefixes.some((prefix) => href === prefix || href.startsWith(`${prefix}/`)) ||
      this.hosts.some(
        (entry) =>
          (entry.wildcard ? host.endsWith(`.${entry.pattern}`) : host === entry.pattern) &&
          (entry.port === undefined || entry.port === port),
      ) ||
      this.isListedAddress(host);
    return allowed ? undefined : `the URL matches no ${this.variable} entry`;
  }

  /** Whether a (resolved) address may be connected to. */
  addressAllowed(address: string): boolean {
    if (!this.refusePrivate || this.isListedAddress(address)) return true;
    return specialPurposeOf(address) === undefined;
  }
}
