import { type AgentState, StateError } from '@agentkit/core';

/** The plugin's name, which is also the key of its slot in `AgentState.plugins`. */
export const TOKEN_BUDGET_PLUGIN_NAME = 'token-budget';

/** What the guard keeps in the agent state: spending of the replies that have ended. */
export interface TokenBudgetState {
  /** Tokens spent by replies that have ended (any finished reason). */
  spent: number;
  /** How many replies have ended. */
  replies: number;
}

/** A fresh slot. */
export function emptyTokenBudgetState(): TokenBudgetState {
  return { spent: 0, replies: 0 };
}

const count = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/** Validates a loaded slot; throws `StateError` naming the bad field. */
export function parseTokenBudgetState(value: unknown): TokenBudgetState {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new StateError(`plugins['${TOKEN_BUDGET_PLUGIN_NAME}'] must be an object.`);
  const { spent, replies } = value as Record<string, unknown>;
  if (!count(spent))
    throw new StateError(`plugins['${TOKEN_BUDGET_PLUGIN_NAME}'].spent must be a number ≥ 0.`);
  if (!count(replies) || !Number.isInteger(replies))
    throw new StateError(`plugins['${TOKEN_BUDGET_PLUGIN_NAME}'].replies must be an integer ≥ 0.`);
  return { spent, replies };
}

/** The guard's slot of a state (a fresh one when the guard has not run on it yet). */
export function readTokenBudget(state: AgentState): TokenBudgetState {
  const slot = state.plugins[TOKEN_BUDGET_PLUGIN_NAME];
  return slot === undefined ? emptyTokenBudgetState() : parseTokenBudgetState(slot);
}
