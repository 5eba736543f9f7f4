// The second process of the pause/resume test: loads the paused state from a file, resumes the reply
// with the user's confirmation, and prints its spans as JSON lines.
import { readFile } from 'node:fs/promises';
import { awaitingToolCalls, userConfirmResult } from '@agentkit/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { pausingAgent } from './pausing-agent';

const [stateFile, resume] = process.argv.slice(2) as [string, 'link' | 'parent'];
const exporter = new InMemorySpanExporter();
const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const agent = pausingAgent({ tracerProvider, resume }, await readFile(stateFile, 'utf8'));
const [call] = awaitingToolCalls(agent.state);
const msg = await agent.reply(userConfirmResult([{ confirmed: true, toolCall: call! }]));
for (const span of exporter.getFinishedSpans())
  process.stdout.write(
    `${JSON.stringify({
      name: span.name,
      traceId: span.spanContext().traceId,
      spanId: span.spanContext().spanId,
      parent: span.parentSpanContext ?? null,
      links: span.links.map((l) => l.context),
      attributes: span.attributes,
    })}\n`,
  );
process.stdout.write(`${JSON.stringify({ finishedReason: msg.finishedReason })}\n`);
await tracerProvider.shutdown();
