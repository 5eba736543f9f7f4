// A second server process for the cross-process tests: a RedisEventLog driven by JSON lines on stdin,
// answering on stdout. Usage: node --conditions=@agentkit/source --import tsx event-log-child.ts <url> <prefix>
import { createInterface } from 'node:readline';
import type { SessionKey } from '@agentkit/core';
import type { LogEvent } from '../src/event-log';
import { RedisEventLog } from '../src/redis';

const [url, keyPrefix] = process.argv.slice(2) as [string, string];
const log = new RedisEventLog({ url, keyPrefix, recheckIntervalMs: 60_000 });
const send = (message: object) => process.stdout.write(`${JSON.stringify(message)}\n`);

log.onInterrupt((session) => send({ interrupt: session }));

type Command =
  | { op: 'append'; session: SessionKey; events: LogEvent[] }
  | { op: 'waitFor'; session: SessionKey; after: string | null; timeoutMs: number }
  | { op: 'interrupt'; session: SessionKey }
  | { op: 'close' };

send({ ready: true });
for await (const line of createInterface({ input: process.stdin })) {
  const command = JSON.parse(line) as Command & { seq: number };
  if (command.op === 'append') {
    const at = Date.now();
    const ids = await log.append(command.session, command.events);
    send({ seq: command.seq, at, ids });
  } else if (command.op === 'waitFor') {
    await log.waitFor(command.session, command.after, command.timeoutMs, new AbortController().signal);
    send({ seq: command.seq, at: Date.now() });
  } else if (command.op === 'interrupt') {
    await log.publishInterrupt(command.session);
    send({ seq: command.seq });
  } else {
    await log.close();
    send({ seq: command.seq });
    break;
  }
}
