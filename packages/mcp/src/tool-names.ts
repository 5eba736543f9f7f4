import { createHash } from 'node:crypto';

/** The tool names every provider accepts (OpenAI, Anthropic and Gemini agree on this subset). */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

const MAX_LENGTH = 64;

/** A short, stable fingerprint of a tool's identity. */
function fingerprint(server: string, tool: string): string {
  return createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, 8);
}

/**
 * `name` made acceptable to providers: every character outside `[a-zA-Z0-9_-]` becomes `_`, and a name
 * longer than 64 characters is cut and ends with a fingerprint of the full name (so two long names that
 * share their first 55 characters stay different).
 */
export function sanitizeToolName(name: string, server = ''): string {
  const clean = name.replace(/[^a-zA-Z0-9_-]/g, '_') || 'tool';
  if (clean.length <= MAX_LENGTH) return clean;
  return `${clean.slice(0, MAX_LENGTH - 9)}_${fingerprint(server, name)}`;
}

/** A tool to name: its server, its MCP name and the server's prefix. */
export interface ToolNameRequest {
  server: string;
  tool: string;
  prefix: string;
}

/**
 * Gives every tool a provider-safe name that is unique among them and `reserved` (names already mounted),
 * deterministically: a tool whose prefixed name is already valid keeps it (the first server in the given
 * order wins a name two servers share); a tool whose name had to change gets its sanitised name (in order
 * of server, then MCP name); a name already taken gets a fingerprint of (server, tool) appended. The same
 * tools and servers always get the same names, whatever order a server lists its tools in, so a paused
 * reply resumed elsewhere finds its tool under the same name.
 */
export function assignToolNames(
  requests: readonly ToolNameRequest[],
  reserved: Iterable<string> = [],
): string[] {
  const taken = new Set(reserved);
  const names: string[] = new Array(requests.length);
  const wanted = requests.map((r) => r.prefix + r.tool);
  const serverRank = new Map<string, number>();
  for (const { server } of requests) if (!serverRank.has(server)) serverRank.set(server, serverRank.size);
  const valid = wanted.map((name) => TOOL_NAME_PATTERN.test(name));
  const order = requests
    .map((_, index) => index)
    .sort((a, b) => {
      if (valid[a] !== valid[b]) return valid[a] ? -1 : 1;
      const byServer = serverRank.get(requests[a]!.server)! - serverRank.get(requests[b]!.server)!;
      if (byServer !== 0) return byServer;
      const [x, y] = [requests[a]!.tool, requests[b]!.tool];
      return x < y ? -1 : x > y ? 1 : 0;
    });
  for (const index of order) {
    const { server, tool } = requests[index]!;
    let name = sanitizeToolName(wanted[index]!, server);
    if (taken.has(name)) {
      const suffix = `_${fingerprint(server, tool)}`;
      name = name.slice(0, MAX_LENGTH - suffix.length) + suffix;
      // A fingerprint clash (or a reserved name that looks like one) is astronomically rare; count on.
      for (let n = 2; taken.has(name); n++) name = `${name.slice(0, MAX_LENGTH - String(n).length - 1)}_${n}`;
    }
    taken.add(name);
    names[index] = name;
  }
  return names;
}
