/**
 * agentkit in a Worker (Cloudflare Workers, Deno Deploy, Vercel Edge): a `fetch` handler that triages an
 * incident into a typed result. A page to the on-call engineer needs a human's approval, so the first
 * request may answer `paused` with the agent state; the next request sends that state back with the
 * decision and the reply goes on, in whichever isolate gets it. No Node APIs, no code generation.
 */
import { Agent, awaitingToolCalls, defineTool, userConfirmResult } from '@agentkit/core';
import { createOpenAIModel } from '@agentkit/model-openai';
import { structuredOutput } from '@agentkit/structured-output';
import { z } from 'zod';

/** The Worker's bindings. */
export interface Env {
  OPENAI_API_KEY: string;
  OPENAI_BASE_URL?: string | undefined;
  OPENAI_MODEL?: string | undefined;
}

/** A request: a new incident, or the approval of a paused reply (the state it answered with). */
export type TriageRequest = { incident: string } | { state: string; approve: boolean };

/** The typed result of a finished reply. */
export const Triage = z.object({
  severity: z.enum(['low', 'high']),
  summary: z.string(),
  tags: z.array(z.string()).default([]),
});

const pageOncall = defineTool({
  name: 'page_oncall',
  description: 'Page the on-call engineer',
  inputSchema: z.object({ message: z.string() }),
  needsConfirmation: true,
  execute: ({ message }) => `paged: ${message}`,
});

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const body = (await request.json()) as TriageRequest;
    const agent = new Agent({
      name: 'triage',
      systemPrompt: 'Triage incidents. Page the on-call engineer for anything urgent.',
      model: createOpenAIModel({
        model: env.OPENAI_MODEL ?? 'gpt-4.1-mini',
        apiKey: env.OPENAI_API_KEY,
        baseURL: env.OPENAI_BASE_URL,
      }),
      tools: [pageOncall],
      plugins: [structuredOutput()],
      state: 'state' in body ? body.state : undefined,
    });
    const msg =
      'incident' in body
        ? await agent.reply(body.incident, { structuredSchema: Triage })
        : await agent.reply(
            userConfirmResult(
              awaitingToolCalls(agent.state).map((toolCall) => ({ confirmed: body.approve, toolCall })),
            ),
          );
    if (msg.finishedReason === null)
      return Response.json({ paused: true, state: JSON.stringify(agent.state) });
    return Response.json({
      finishedReason: msg.finishedReason,
      structuredOutput: msg.structuredOutput,
      error: msg.error?.message,
    });
  },
};
