import { isIPv4 } from 'node:net';
import type { Request } from 'express';
import { ipKeyGenerator } from 'express-rate-limit';
import { unmapIpv4 } from '../../platform/http/ip-address';

/**
 * The address a request counts against: IPv4 by the whole address (an IPv4-mapped IPv6 address is IPv4), IPv6 by
 * its /64, the block one subscriber usually holds. Behind a proxy the address is the client's only with TRUST_PROXY.
 */
export function addressKey(req: Request): string {
  const ip = unmapIpv4(req.ip ?? req.socket.remoteAddress ?? 'unknown');
  return isIPv4(ip) ? ip : ipKeyGenerator(ip, 64);
}
