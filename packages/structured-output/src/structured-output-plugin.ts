import {
  ConfigError,
  type AgentState,
  type JSONSchema,
  type Plugin,
  type PluginContext,
  type StandardSchemaV1,
} from '@agentkit/core';
import { createGenerateStructuredOutputTool } from './generate-structured-output-tool';
import { JsonSchemaValidator } from './json-schema-validator';
import { StructuredSchemaError } from './structured-schema-error';
import {
  GENERATE_STRUCTURED_OUTPUT_TOOL_NAME,
  STRUCTURED_OUTPUT_HINT_SOURCE,
  structuredOutputHint,
} from './texts';
import { assertUsableJsonSchema, isStandardSchemaLike, toJsonSchema } from './to-json-schema';

/** The plugin's name (its reply-data namespace). */
export const STRUCTURED_OUTPUT_PLUGIN_NAME = '@agentkit/structured-output';

/** Options of {@link structuredOutput}. */
export interface StructuredOutputOptions {
  /**
   * Extra iterations after `maxIters` during which the `GenerateStructuredOutput` call is forced; after
   * them the reply ends `exceed_max_iters` with `structuredOutput: null`. A positive integer, default 5.
   */
  graceIters?: number | undefined;
}

/** What the plugin keeps in `state.reply.data[name]` for the current reply: the schema as JSON Schema. */
export interface StructuredOutputReplyData {
  schema: JSONSchema;
}

const DEFAULT_GRACE_ITERS = 5;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks the options (an object with known keys only) and returns `graceIters`. @throws {ConfigError} */
function resolveGraceIters(options: StructuredOutputOptions): number {
  if (!isObject(options))
    throw new ConfigError(`structuredOutput: options must be an object, got ${JSON.stringify(options)}.`, {
      field: 'structuredOutput',
    });
  for (const key of Object.keys(options))
    if (key !== 'graceIters')
      throw new ConfigError(
        `structuredOutput: unknown option '${key}' (the only option is 'graceIters': iterations after maxIters during which the call is forced).`,
        { field: `structuredOutput.${key}` },
      );
  const graceIters: unknown = options.graceIters ?? DEFAULT_GRACE_ITERS;
  if (typeof graceIters !== 'number' || !Number.isInteger(graceIters) || graceIters <= 0)
    throw new ConfigError(
      `structuredOutput: graceIters must be a positive integer, got ${String(graceIters)}.`,
      { field: 'structuredOutput.graceIters' },
    );
  return graceIters;
}

/**
 * Structured output: pass `structuredSchema` (zod or any Standard Schema with JSON Schema support) to
 * `agent.reply` and the reply ends only once the model submitted a valid result through the
 * `GenerateStructuredOutput` tool; it lands, typed, on `result.structuredOutput`.
 *
 * - The requirement belongs to one reply. Its JSON Schema is stored in the reply's state, so it survives
 *   pauses and restarts; resuming needs no schema (one passed on resume is ignored with a warning).
 * - In process the schema object validates (zod fills defaults, drops unknown keys, runs refinements);
 *   after a restart the stored JSON Schema does (defaults filled, unknown keys kept, refinements lost).
 * - Before every model call a reminder hint is persisted; from `maxIters` on the tool call is forced, and
 *   after `graceIters` more iterations the reply ends `exceed_max_iters` with `structuredOutput: null`.
 * @example
 * const agent = new Agent({ name: 'a', model, plugins: [structuredOutput()] });
 * const result = await agent.reply('Weather in Hangzhou?', {
 *   structuredSchema: z.object({ city: z.string(), temperature: z.number() }),
 * });
 * result.structuredOutput?.temperature; // number | undefined
 */
export function structuredOutput(options: StructuredOutputOptions = {}): Plugin {
  const graceIters = resolveGraceIters(options);
  const validator = new JsonSchemaValidator();
  // The schema objects of replies started in this process, by the agent's live state. After a restart
  // (a new state object) there is none and the stored JSON Schema validates.
  const liveSchemas = new WeakMap<AgentState, { replyId: string; schema: StandardSchemaV1 | null }>();
  // Calls whose output the schema itself made unstorable (not plain JSON), by reply and tool-call id (one
  // plugin instance may serve many agents, whose models may reuse call ids): `afterTool` ends the reply with
  // the error, since no retry of the model can fix the schema.
  const schemaProblems = new Map<string, string>();
  const onSchemaProblem = (callKey: string, message: string) => schemaProblems.set(callKey, message);

  const storedSchema = (ctx: PluginContext): JSONSchema | null => {
    const data = ctx.getReplyData<unknown>();
    if (data === undefined || data === null) return null;
    if (!isObject(data) || !isObject(data.schema))
      throw new StructuredSchemaError(
        `The stored structured-output data of reply '${ctx.reply.id}' is corrupt: expected { schema: <JSON Schema> }.`,
      );
    assertUsableJsonSchema(data.schema, validator);
    return data.schema;
  };

  /** Whether the current reply still needs its structured output. */
  const pending = (ctx: PluginContext): boolean => storedSchema(ctx) !== null && ctx.reply.finish === null;

  return {
    name: STRUCTURED_OUTPUT_PLUGIN_NAME,
    replyOptions: ['structuredSchema'],
    hooks: {
      beforeReply({ ctx, input, options: replyOptions }) {
        const requested = replyOptions.structuredSchema as unknown;
        if (input.kind === 'resume') {
          if (requested !== undefined && requested !== null)
            ctx.logger.warn(
              `[${STRUCTURED_OUTPUT_PLUGIN_NAME}] The structuredSchema passed when resuming reply '${ctx.reply.id}' is ignored: ` +
                'a paused reply continues with the schema it was started with.',
            );
        } else if (requested !== undefined && requested !== null) {
          const data: StructuredOutputReplyData = { schema: toJsonSchema(requested, validator) };
          ctx.setReplyData(data);
          liveSchemas.set(ctx.state, {
            replyId: ctx.reply.id,
            schema: isStandardSchemaLike(requested) ? requested : null,
          });
        }
        const jsonSchema = storedSchema(ctx);
        if (!jsonSchema) return;
        const live = liveSchemas.get(ctx.state);
        const liveSchema = live && live.replyId === ctx.reply.id ? live.schema : null;
        return {
          tools: [createGenerateStructuredOutputTool({ jsonSchema, liveSchema, validator, onSchemaProblem })],
        };
      },

      beforeInference({ ctx, request }) {
        if (!pending(ctx)) return;
        const forced = ctx.reply.iteration >= ctx.maxIters;
        ctx.addHint(structuredOutputHint(forced), { source: STRUCTURED_OUTPUT_HINT_SOURCE });
        if (forced) return { ...request, toolChoice: { name: GENERATE_STRUCTURED_OUTPUT_TOOL_NAME } };
      },

      beforeTool({ ctx, toolCall }) {
        // The final tool is always allowed: it only validates and records the output.
        if (toolCall.name === GENERATE_STRUCTURED_OUTPUT_TOOL_NAME && storedSchema(ctx) !== null)
          return { decision: 'allow' };
      },

      afterTool({ ctx, toolCall }) {
        const key = `${ctx.reply.id} ${toolCall.id}`;
        const problem = schemaProblems.get(key);
        if (problem === undefined) return;
        schemaProblems.delete(key);
        throw new StructuredSchemaError(problem.replace(/^SchemaError: /, ''));
      },

      beforeFinish({ ctx }) {
        if (!pending(ctx)) return;
        // Neither a text-only answer nor the iteration limit ends a reply that owes a structured output,
        // until the grace iterations after `maxIters` are used up. Then the kernel ends the reply
        // `exceed_max_iters` (a final answer past `maxIters` is never `completed`), `structuredOutput: null`.
        if (ctx.reply.iteration < ctx.maxIters + graceIters) return { continue: true };
      },

      onReplyEnd({ ctx }) {
        const live = liveSchemas.get(ctx.state);
        if (live && live.replyId === ctx.reply.id) liveSchemas.delete(ctx.state);
      },
    },
  };
}
