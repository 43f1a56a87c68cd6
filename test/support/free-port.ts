/**
 * A free loopback port for a server a test starts, picked below the kernel's ephemeral range. A port
 * that `listen(0)` handed out and that was closed again is back in that range, where any outgoing
 * connection of a parallel test may take it as its source port before the server binds it (a CI run
 * failed with EADDRINUSE that way); below the range only another picked port can collide, at random.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const FLOOR = 10_000;

/** The lowest ephemeral port (Linux's `ip_local_port_range`); 32768 where it cannot be read. */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > FLOOR ? low : 32_768;
  } catch {
    return 32_768;
  }
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  const span = ephemeralLow() - FLOOR;
  for (let i = 0; i < 50; i++) {
    const port = FLOOR + Math.floor(Math.random() * span);
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port between ${FLOOR} and ${FLOOR + span} after 50 tries`);
}
