import type { PermissionRule } from './blocks';
import type { ToolDecision } from './plugin';
import type { PermissionRules } from './state';
import type { AnyTool } from './tool';

function matches(rule: PermissionRule, tool: AnyTool, input: unknown): boolean {
  if (rule.toolName !== tool.name) return false;
  if (rule.ruleContent === null || rule.ruleContent === undefined) return true;
  // Without the tool's own matcher, a rule covers exactly one input (canonical JSON): a substring match
  // would let `ls` allow `rm -rf ~; ls`.
  return tool.matchRule ? tool.matchRule(rule.ruleContent, input) : rule.ruleContent === canonicalJson(input);
}

/** JSON with object keys sorted, so equal inputs give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, (v as Record<string, unknown>)[k]]),
        )
      : v,
  );
}

/** The rule offered to the user by default when a call needs confirmation: allow every call of the tool. */
export function defaultSuggestedRules(tool: AnyTool): PermissionRule[] {
  return [{ toolName: tool.name, ruleContent: null, behavior: 'allow' }];
}

/** Whether any of `rules` covers this call. */
export function anyRuleMatches(rules: readonly PermissionRule[], tool: AnyTool, input: unknown): boolean {
  return rules.some((r) => matches(r, tool, input));
}

/**
 * The default decision about a call when no `beforeTool` hook decided: deny rules, then ask rules, then
 * the tool's own `needsConfirmation` unless an allow rule covers the call, then external tools, else allow.
 */
export function decidePermission(rules: PermissionRules, tool: AnyTool, input: unknown): ToolDecision {
  if (anyRuleMatches(rules.deny, tool, input))
    return {
      decision: 'deny',
      message: `<system-reminder>The execution of tool "${tool.name}" is denied by a permission rule.</system-reminder>`,
    };
  if (anyRuleMatches(rules.ask, tool, input))
    return { decision: 'ask', suggestedRules: defaultSuggestedRules(tool) };
  const needs =
    typeof tool.needsConfirmation === 'function' ? tool.needsConfirmation(input) : tool.needsConfirmation;
  if (needs && !anyRuleMatches(rules.allow, tool, input))
    return { decision: 'ask', suggestedRules: defaultSuggestedRules(tool) };
  if (tool.external) return { decision: 'external' };
  return { decision: 'allow' };
}
