import ipaddr from 'ipaddr.js';

/**
 * The network a client address stands for when budgets are kept per client: an IPv4 address
 * itself (IPv4-mapped IPv6 included), or the /64 an IPv6 address is in. A single subscriber is
 * usually given a whole /64, so a budget per IPv6 address would be one per guess for a client
 * that picks a new address each time. Text that is not an address is its own network.
 */
export function clientNetwork(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const prefix = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${prefix.join(':')}::/64`;
}

/** proxy-addr's names of address ranges, as Fastify's `trustProxy` takes them. */
const namedRanges = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * The entries of a list of trusted proxies that are no address, network (CIDR) or named range,
 * which Fastify would refuse at start-up with less to go on.
 */
export function invalidProxyEntries(entries: readonly string[]): string[] {
  return entries.filter((entry) => {
    if (namedRanges.has(entry)) return false;
    if (!entry.includes('/')) return !ipaddr.isValid(entry);
    try {
      ipaddr.parseCIDR(entry);
      return false;
    } catch {
      return true;
    }
  });
}
