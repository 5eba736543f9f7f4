import { Redis } from 'ioredis';

/**
 * The commands `run` makes the server on `port` execute, in order and in lower case (what Lua scripts
 * call is left out): the server's MONITOR between two `ECHO` markers. Use a server of your own
 * (`startRedisServer`), so that no other test's commands are counted.
 */
export async function commandsSent(port: number, run: () => Promise<unknown>): Promise<string[]> {
  const admin = new Redis({ port });
  const marker = new Redis({ port });
  // Both connected first: a connection's ready check (INFO) echoed to a monitor that is still waiting for
  // the reply to its MONITOR confuses ioredis ("Command queue state error").
  await Promise.all([admin.ping(), marker.ping()]);
  const monitor = await admin.monitor();
  try {
    const seen: string[] = [];
    let recording = false;
    const done = new Promise<void>((resolve) =>
      monitor.on('monitor', (_time: string, args: string[], source: string) => {
        if (args[0] === 'echo' && args[1] === 'begin') recording = true;
        else if (args[0] === 'echo' && args[1] === 'end') {
          recording = false;
          resolve();
        } else if (recording && source !== 'lua') seen.push(String(args[0]).toLowerCase());
      }),
    );
    await marker.echo('begin');
    await run();
    await marker.echo('end');
    await done;
    return seen;
  } finally {
    monitor.disconnect();
    marker.disconnect();
    admin.disconnect();
  }
}
