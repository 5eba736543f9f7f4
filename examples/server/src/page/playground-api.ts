import type { AgentInput, Msg, SessionSummary } from '@agentkit/core';
import type { SessionView } from '@agentkit/server';
import { ApiError } from './api-error';

/** An agent the server serves (`GET /agents`). */
export interface AgentInfo {
  id: string;
  description: string | null;
}

/** A reply started in the background: follow its events at `events`. */
export interface StartedReply {
  runId: string;
  events: string;
}

/** The routes of `@agentkit/server` the page uses, under `base` (`/api`). */
export class PlaygroundApi {
  constructor(private readonly base: string) {}

  /** Where a session's routes live. */
  sessionPath(agentId: string, sessionId: string): string {
    return `${this.base}/agents/${encodeURIComponent(agentId)}/sessions/${encodeURIComponent(sessionId)}`;
  }

  /** The agents served. */
  async agents(): Promise<AgentInfo[]> {
    return (await this.request<{ agents: AgentInfo[] }>('GET', `${this.base}/agents`)).agents;
  }

  /** The user's sessions with the agent, newest first (the first 100). */
  async listSessions(agentId: string): Promise<SessionSummary[]> {
    const path = `${this.base}/agents/${encodeURIComponent(agentId)}/sessions?limit=100`;
    return (await this.request<{ sessions: SessionSummary[] }>('GET', path)).sessions;
  }

  /** Creates a session with a random id. */
  createSession(agentId: string, metadata: Record<string, string>): Promise<SessionView> {
    return this.request('POST', `${this.base}/agents/${encodeURIComponent(agentId)}/sessions`, { metadata });
  }

  /** A session and its status (`running`, `paused` with the calls it awaits, …). */
  session(agentId: string, sessionId: string): Promise<SessionView> {
    return this.request('GET', this.sessionPath(agentId, sessionId));
  }

  /** Deletes a session (`409` while a reply runs). */
  async deleteSession(agentId: string, sessionId: string): Promise<void> {
    await this.request('DELETE', this.sessionPath(agentId, sessionId));
  }

  /** The session's latest messages (up to 200), oldest first. */
  async messages(agentId: string, sessionId: string): Promise<Msg[]> {
    const path = `${this.sessionPath(agentId, sessionId)}/messages?limit=200`;
    return (await this.request<{ messages: Msg[] }>('GET', path)).messages;
  }

  /** Starts a reply (or resumes a paused one) in the background. */
  reply(agentId: string, sessionId: string, input: AgentInput): Promise<StartedReply> {
    return this.request('POST', `${this.sessionPath(agentId, sessionId)}/replies`, { input });
  }

  /** Interrupts the running reply, or ends a paused one (with a new run). */
  async interrupt(agentId: string, sessionId: string): Promise<void> {
    await this.request('POST', `${this.sessionPath(agentId, sessionId)}/interrupt`);
  }

  private async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(path, {
      method,
      headers: {
        Accept: 'application/json',
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    if (!response.ok) throw await ApiError.from(response);
    return (response.status === 204 ? undefined : await response.json()) as T;
  }
}
