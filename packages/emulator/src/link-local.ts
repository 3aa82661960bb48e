import { BlockList, isIPv4, isIPv6 } from 'node:net';

// Link-local ranges hold cloud metadata services (169.254.169.254) and other hosts that a
// webhook must never be aimed at.
const LINK_LOCAL = new BlockList();
LINK_LOCAL.addSubnet('169.254.0.0', 16, 'ipv4');
LINK_LOCAL.addSubnet('fe80::', 10, 'ipv6');

/** Whether a URL's hostname is a link-local address, IPv4-mapped IPv6 forms included. */
export function isLinkLocalHost(hostname: string): boolean {
  const address = hostname.replace(/^\[|\]$/g, '');
  if (isIPv4(address)) return LINK_LOCAL.check(address, 'ipv4');
  if (!isIPv6(address)) return false;
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (mapped) {
    const high = Number.parseInt(mapped[1]!, 16);
    const low = Number.parseInt(mapped[2]!, 16);
    const ipv4 = [high >> 8, high & 255, low >> 8, low & 255].join('.');
    return LINK_LOCAL.check(ipv4, 'ipv4');
  }
  return LINK_LOCAL.check(address, 'ipv6');
}
