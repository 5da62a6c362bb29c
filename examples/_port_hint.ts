/**
 * The message an example prints when its port is taken: it names a port that
 * is free right now (the system picks it), never the next number, which may
 * be another example's (uploads 8001 is next to auth 8000).
 *
 * @module
 */

/**
 * "Port 8000 is in use. Choose another: PORT=41234 deno task dev", or without
 * a command "... PORT=41234 before the same command".
 */
export function portInUseMessage(
  port: number,
  options: { hostname?: string; command?: string } = {},
): string {
  const probe = Deno.listen({
    hostname: options.hostname ?? "127.0.0.1",
    port: 0,
  });
  const free = (probe.addr as Deno.NetAddr).port;
  probe.close();
  const then = options.command ?? "before the same command";
  return `Port ${port} is in use. Choose another: PORT=${free} ${then}`;
}
