import ipaddr from 'ipaddr.js';

/** An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, as a dual-stack socket reports IPv4 peers) as the IPv4 address it is. */
export function unmapIpv4(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  return mapped ? mapped[1] : address;
}

function parse(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  if (ipaddr.IPv4.isValidFourPartDecimal(address)) return ipaddr.IPv4.parse(address);
  if (!address.includes(':')) return undefined;
  try {
    // WHATWG URL's IPv6 parser writes any IPv6 address in hex: ipaddr.js reads a dotted tail (`::127.0.0.1`) as
    // IPv4-mapped whatever comes before it, and would decode the wrong range.
    return ipaddr.IPv6.parse(new URL(`http://[${address}]/`).hostname.slice(1, -1));
  } catch {
    return undefined;
  }
}

const ipv4Of = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

/**
 * The IPv4 addresses an IPv6 address stands for, where it embeds them: IPv4-mapped (::ffff:0:0/96), IPv4-translated
 * (::ffff:0:0:0/96), IPv4-compatible (::/96), NAT64 (64:ff9b::/96), 6to4 (2002::/16, the site's address) and Teredo
 * (2001::/32, the server and the client, whose address is stored inverted). A connection to one of these may reach
 * the IPv4 address, so that address is what must be public.
 */
function embeddedIpv4(address: ipaddr.IPv6): { how: string; addresses: ipaddr.IPv4[] } | undefined {
  const p = address.parts;
  switch (address.range()) {
    case 'ipv4Mapped':
      return { how: 'IPv4-mapped', addresses: [ipv4Of(p[6], p[7])] };
    case 'rfc6145':
      return { how: 'IPv4-translated', addresses: [ipv4Of(p[6], p[7])] };
    case 'rfc6052':
      // 64:ff9b::/96; the local-use 64:ff9b:1::/48 is not globally reachable and is refused as such.
      return p.slice(2, 6).every((part) => part === 0) ? { how: 'NAT64', addresses: [ipv4Of(p[6], p[7])] } : undefined;
    case '6to4':
      return { how: '6to4', addresses: [ipv4Of(p[1], p[2])] };
    case 'teredo':
      return { how: 'Teredo', addresses: [ipv4Of(p[2], p[3]), ipv4Of(~p[6] & 0xffff, ~p[7] & 0xffff)] };
    case 'unicast':
      return p.slice(0, 6).every((part) => part === 0) ? { how: 'IPv4-compatible', addresses: [ipv4Of(p[6], p[7])] } : undefined;
    default:
      return undefined;
  }
}

/** Global unicast IPv6 (RFC 4291, IANA's IPv6 address space): everything outside it is special or unassigned. */
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3') as [ipaddr.IPv6, number];

/**
 * Why an address is not an ordinary public one, or undefined when it is: its special-purpose range (ipaddr.js's
 * classification of the IANA IPv4 and IPv6 special-purpose registries, plus multicast, broadcast and the deprecated
 * site-local fec0::/10), the range of the IPv4 address it embeds, or that it lies outside global unicast 2000::/3.
 * Text that is no IP address is refused too: refuse rather than guess.
 */
export function specialPurposeOf(address: string): string | undefined {
  const parsed = parse(address);
  if (!parsed) return 'not an IP address';
  if (parsed.kind() === 'ipv4') {
    const range = parsed.range();
    return range === 'unicast' ? undefined : range;
  }
  const ipv6 = parsed as ipaddr.IPv6;
  const embedded = embeddedIpv4(ipv6);
  if (embedded) {
    for (const inner of embedded.addresses) {
      const range = specialPurposeOf(inner.toString());
      if (range) return `${embedded.how}, embedding ${inner.toString()}: ${range}`;
    }
    return undefined;
  }
  const range = ipv6.range();
  if (range !== 'unicast') return range;
  return ipv6.match(GLOBAL_UNICAST) ? undefined : 'outside global unicast 2000::/3';
}
