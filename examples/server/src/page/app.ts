/**
 * The playground page: a session list and a chat with one agent of `@agentkit/server`. Replies run in the
 * background (`202`); the page follows the session's events and rebuilds each reply with `applyEvent`,
 * the reducer the server's messages come from, so what it shows is what gets stored.
 */
import { type AgentInput, applyEvent, type Msg, type SessionSummary, userMsg } from '@agentkit/core';
import type { LogEvent, SessionView } from '@agentkit/server';
import { askConfirmation } from './ask-confirmation';
import { byId, h } from './dom';
import { type ConnectionState, followEvents } from './follow-events';
import { PlaygroundApi } from './playground-api';
import { renderMessage } from './render-message';

type Phase = 'idle' | 'running' | 'paused';

const api = new PlaygroundApi('/api');
const ui = {
  sessions: byId<HTMLUListElement>('sessions'),
  newSession: byId<HTMLButtonElement>('new-session'),
  title: byId('session-title'),
  chat: byId('chat'),
  messages: byId<HTMLOListElement>('messages'),
  composer: byId<HTMLFormElement>('composer'),
  input: byId<HTMLTextAreaElement>('message-input'),
  send: byId<HTMLButtonElement>('send'),
  interrupt: byId<HTMLButtonElement>('interrupt'),
  runStatus: byId('run-status'),
  connection: byId('connection'),
  error: byId('error'),
  dialog: byId<HTMLDialogElement>('confirm'),
};

const state = {
  agentId: '',
  sessions: [] as SessionSummary[],
  sessionId: null as string | null,
  messages: [] as Msg[],
  phase: 'idle' as Phase,
  /** The reply events without a `replyId` belong to. */
  replyId: null as string | null,
  lastEventId: null as string | null,
  following: null as AbortController | null,
};

// ——— Actions ———

async function start(): Promise<void> {
  const agents = await api.agents();
  if (!agents[0]) throw new Error('The server serves no agent.');
  state.agentId = agents[0].id;
  await refreshSessions();
  const wanted = new URLSearchParams(location.hash.slice(1)).get('session');
  if (wanted && state.sessions.some((s) => s.sessionId === wanted)) await openSession(wanted);
  else setPhase('idle');
}

async function refreshSessions(): Promise<void> {
  state.sessions = await api.listSessions(state.agentId);
  renderSessions();
}

async function createSession(title: string): Promise<string> {
  const session = await api.createSession(state.agentId, { title });
  await refreshSessions();
  await openSession(session.sessionId);
  return session.sessionId;
}

async function openSession(sessionId: string): Promise<void> {
  state.following?.abort();
  Object.assign(state, {
    sessionId,
    messages: [],
    replyId: null,
    lastEventId: null,
    following: null,
  });
  history.replaceState(null, '', `#session=${encodeURIComponent(sessionId)}`);
  renderSessions();
  renderAll();
  const [messages, view] = await Promise.all([
    api.messages(state.agentId, sessionId),
    api.session(state.agentId, sessionId),
  ]);
  if (state.sessionId !== sessionId) return;
  state.messages = messages;
  renderAll();
  await settle(view);
}

/** Acts on where a session stands: follows a running reply, asks about a paused one. */
async function settle(view: SessionView): Promise<void> {
  if (view.status === 'running') return follow(`${api.sessionPath(state.agentId, view.sessionId)}/events`);
  setPhase(view.status === 'paused' ? 'paused' : 'idle');
  if (view.status === 'failed')
    showError(`The last reply did not finish: ${view.lastReply?.error?.message ?? 'its process stopped.'}`);
  if (view.status === 'paused') await confirmPaused(view);
}

async function send(text: string): Promise<void> {
  const sessionId = state.sessionId ?? (await createSession(text.slice(0, 60)));
  // Shown at once; replaced by the stored message when the reply is over.
  const message = userMsg(text);
  state.messages.push(message);
  render(message.id);
  ui.input.value = '';
  await startReply(sessionId, text);
}

async function startReply(sessionId: string, input: AgentInput): Promise<void> {
  setPhase('running');
  try {
    const run = await api.reply(state.agentId, sessionId, input);
    await follow(run.events);
  } catch (error) {
    showError(error);
    if (state.sessionId === sessionId) await settle(await api.session(state.agentId, sessionId));
  }
}

async function confirmPaused(view: SessionView): Promise<void> {
  const asking = view.awaiting.filter((call) => call.state === 'asking');
  if (asking.length === 0 || ui.dialog.open) return;
  const answers = await askConfirmation(asking);
  if (!answers || state.sessionId !== view.sessionId) return; // closed: the card's Review… button reopens it
  await startReply(view.sessionId, { type: 'USER_CONFIRM_RESULT', confirmResults: answers });
}

async function interrupt(): Promise<void> {
  const sessionId = state.sessionId;
  if (!sessionId) return;
  const wasPaused = state.phase === 'paused';
  await api.interrupt(state.agentId, sessionId);
  // A paused reply is ended by a new run; a running one reports its end on the stream already followed.
  if (wasPaused) await follow(`${api.sessionPath(state.agentId, sessionId)}/events`);
}

async function deleteSession(sessionId: string): Promise<void> {
  if (!confirm('Delete this session and its messages?')) return;
  await api.deleteSession(state.agentId, sessionId);
  if (state.sessionId === sessionId) {
    state.following?.abort();
    Object.assign(state, { sessionId: null, messages: [], following: null });
    history.replaceState(null, '', location.pathname);
    setPhase('idle');
  }
  await refreshSessions();
  renderAll();
}

/** Follows the session's events from `url` (or after the last event seen) until no reply runs. */
async function follow(url: string): Promise<void> {
  const sessionId = state.sessionId;
  if (!sessionId) return;
  state.following?.abort();
  const following = new AbortController();
  state.following = following;
  setPhase('running');
  try {
    state.lastEventId = await followEvents({
      url,
      lastEventId: state.lastEventId,
      signal: following.signal,
      onEvent: onLogEvent,
      onConnection: showConnection,
    });
  } finally {
    if (state.following === following) state.following = null;
    showConnection('live');
  }
  if (following.signal.aborted || state.sessionId !== sessionId) return;
  // Show the user messages the server stored; keep the replies as the page rebuilt them.
  const [stored, view] = await Promise.all([
    api.messages(state.agentId, sessionId),
    api.session(state.agentId, sessionId),
  ]);
  if (state.sessionId !== sessionId || state.following) return;
  const rebuilt = new Map(state.messages.map((m) => [m.id, m]));
  state.messages = stored.map((m) => rebuilt.get(m.id) ?? m);
  renderAll();
  await settle(view);
}

function onLogEvent(event: LogEvent): void {
  if (event.type === 'RUN_START') {
    if (event.replyId) state.replyId = event.replyId;
    setPhase('running');
    return;
  }
  if (event.type === 'RUN_END') {
    if (event.status === 'failed') showError(`The reply failed: ${event.error?.message ?? event.status}`);
    setPhase(event.status === 'paused' ? 'paused' : 'idle');
    return;
  }
  if (event.type === 'STREAM_GAP') {
    // The log dropped events this page never saw: the reply rebuilt so far is incomplete. Drop it;
    // the stored message takes its place when the run ends.
    state.messages = state.messages.filter((m) => m.id !== state.replyId);
    renderAll();
    showError('Some of this reply’s live events were lost; it will show in full when it ends.');
    return;
  }
  if (event.type === 'REPLY_START' || event.type === 'REPLY_SNAPSHOT') state.replyId = event.replyId;
  const replyId = 'replyId' in event && typeof event.replyId === 'string' ? event.replyId : state.replyId;
  if (!replyId) return;
  const index = state.messages.findIndex((m) => m.id === replyId);
  const message = applyEvent(
    event.type === 'REPLY_START' || index < 0 ? null : state.messages[index]!,
    event,
  );
  if (!message) return;
  if (index >= 0) state.messages[index] = message;
  else state.messages.push(message);
  render(message.id);
}

// ——— Rendering ———

const dirty = new Set<string>();
let frame = 0;

/** Re-renders a message at the next frame (many events often arrive at once). */
function render(messageId: string): void {
  dirty.add(messageId);
  if (frame !== 0) return;
  frame = requestAnimationFrame(() => {
    frame = 0;
    const atBottom = ui.chat.scrollHeight - ui.chat.scrollTop - ui.chat.clientHeight < 40;
    for (const id of dirty) {
      const message = state.messages.find((m) => m.id === id);
      const shown = ui.messages.querySelector(`[data-message-id="${CSS.escape(id)}"]`);
      if (!message) shown?.remove();
      else if (shown) shown.replaceWith(renderMessage(message, shown));
      else ui.messages.append(renderMessage(message));
    }
    dirty.clear();
    if (atBottom) ui.chat.scrollTop = ui.chat.scrollHeight;
  });
}

function renderAll(): void {
  dirty.clear();
  ui.messages.replaceChildren(...state.messages.map((m) => renderMessage(m)));
  ui.chat.scrollTop = ui.chat.scrollHeight;
  const session = state.sessions.find((s) => s.sessionId === state.sessionId);
  ui.title.textContent = session ? sessionTitle(session) : 'No session selected';
}

function renderSessions(): void {
  ui.sessions.replaceChildren(
    ...state.sessions.map((s) => {
      const title = sessionTitle(s);
      return h(
        'li',
        {},
        h(
          'button',
          {
            type: 'button',
            class: 'pick',
            'data-action': 'open',
            'data-session-id': s.sessionId,
            'aria-current': s.sessionId === state.sessionId ? 'true' : undefined,
          },
          h('span', {}, title),
          h('small', {}, new Date(s.createdAt).toLocaleString()),
        ),
        h(
          'button',
          {
            type: 'button',
            class: 'delete',
            'data-action': 'delete',
            'data-session-id': s.sessionId,
            'aria-label': `Delete session ${title}`,
          },
          '✕',
        ),
      );
    }),
  );
}

function sessionTitle(session: SessionSummary): string {
  const title = session.metadata.title;
  return typeof title === 'string' && title.trim() !== '' ? title : session.sessionId;
}

function setPhase(phase: Phase): void {
  state.phase = phase;
  ui.send.disabled = phase !== 'idle';
  ui.interrupt.disabled = phase === 'idle' || !state.sessionId;
  ui.messages.setAttribute('aria-busy', String(phase === 'running'));
  ui.runStatus.textContent =
    phase === 'running'
      ? 'The agent is replying…'
      : phase === 'paused'
        ? 'Waiting for your confirmation.'
        : '';
}

function showConnection(connection: ConnectionState): void {
  ui.connection.textContent = connection === 'reconnecting' ? 'reconnecting…' : '';
  ui.connection.dataset.state = connection;
}

function showError(error: unknown): void {
  ui.error.textContent = error instanceof Error ? error.message : String(error);
  ui.error.hidden = false;
}

function clearError(): void {
  ui.error.textContent = '';
  ui.error.hidden = true;
}

/** Runs a user action, showing its failure instead of losing it in the console. */
function act(action: () => Promise<void>): void {
  clearError();
  action().catch(showError);
}

// ——— Wiring ———

ui.composer.addEventListener('submit', (event) => {
  event.preventDefault();
  const text = ui.input.value.trim();
  if (text && state.phase === 'idle') act(() => send(text));
});
ui.input.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    ui.composer.requestSubmit();
  }
});
ui.interrupt.addEventListener('click', () => act(interrupt));
ui.newSession.addEventListener('click', () =>
  act(async () => void (await createSession(`Session of ${new Date().toLocaleTimeString()}`))),
);
ui.sessions.addEventListener('click', (event) => {
  const button = (event.target as Element).closest<HTMLButtonElement>('button[data-action]');
  const sessionId = button?.dataset.sessionId;
  if (!sessionId) return;
  if (button.dataset.action === 'delete') act(() => deleteSession(sessionId));
  else if (sessionId !== state.sessionId) act(() => openSession(sessionId));
});
ui.messages.addEventListener('click', (event) => {
  const button = (event.target as Element).closest('button[data-action="review"]');
  if (button && state.sessionId && state.phase === 'paused')
    act(async () => confirmPaused(await api.session(state.agentId, state.sessionId!)));
});

act(start);
