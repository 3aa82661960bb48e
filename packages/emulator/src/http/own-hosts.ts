import { hostname, networkInterfaces } from 'node:os';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

function asUrlHost(address: string): string {
  return address.includes(':') ? `[${address}]` : address;
}

/** Every address of this machine, for an emulator listening on all of them. */
function machineNames(): string[] {
  const names = [hostname().toLowerCase()];
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) {
      // Scoped (zone) addresses cannot appear in a Host header.
      if (entry.scopeid === undefined || entry.scopeid === 0) names.push(asUrlHost(entry.address));
    }
  }
  return names;
}

/**
 * The `Host` values an emulator listening on `host`:`port` answers to: the loopback names,
 * its own address (every address of the machine for a wildcard), the host of `publicUrl`,
 * and `extra` names, an entry without a port taking the emulator's port.
 */
export function ownHosts(
  host: string,
  port: number,
  publicUrl: string | null,
  extra: readonly string[],
): ReadonlySet<string> {
  const wildcard = host === '0.0.0.0' || host === '::';
  const names = [...LOOPBACK_NAMES, ...(wildcard ? machineNames() : [asUrlHost(host)])];
  const hosts = new Set<string>();
  const add = (name: string) => {
    hosts.add(`${name.toLowerCase()}:${port}`);
    // Clients leave the default port out of the Host header.
    if (port === 80) hosts.add(name.toLowerCase());
  };
  names.forEach(add);
  for (const entry of extra) {
    if (/:\d+$/.test(entry)) hosts.add(entry);
    else add(entry);
  }
  if (publicUrl !== null) hosts.add(new URL(publicUrl).host.toLowerCase());
  return hosts;
}
