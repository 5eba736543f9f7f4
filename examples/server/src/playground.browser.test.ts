import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAgentState, createMsg, type Msg } from '@agentkit/core';
import { FileSessionStore } from '@agentkit/storage-fs';
import { DEMO_TASK } from '@example/quickstart/src/demo-task';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SpawnedPlayground, spawnPlayground } from './spawn-playground';
import { type CuttableProxy, startCuttableProxy } from './start-cuttable-proxy';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium)
  console.warn(
    `example-server: SKIPPING the browser tests — no Chromium at ${CHROMIUM}. Install it (apt-get install -y chromium) or set CHROMIUM_PATH.`,
  );

/** Screenshots of each step, kept as test artifacts (git-ignored). */
const SHOTS = fileURLToPath(new URL('../test-results/', import.meta.url));
const WAIT = { timeout: 30_000 };

describe.skipIf(!hasChromium)('the playground page in headless Chromium', () => {
  let playground: SpawnedPlayground;
  let userDataDir: string;
  let context: BrowserContext;
  let page: Page;
  let proxy: CuttableProxy | undefined;

  beforeAll(async () => {
    await mkdir(SHOTS, { recursive: true });
    // A slow scripted model (80 ms before each chunk), so text streams over seconds.
    playground = await spawnPlayground({ delayMs: 80 });
    userDataDir = await mkdtemp(join(tmpdir(), 'agentkit-chromium-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        '--disable-sync',
      ],
      viewport: { width: 1100, height: 800 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (error) => console.error('page error:', error));
    await page.goto(`${playground.url}/`);
  });
  afterAll(async () => {
    await context?.close();
    await proxy?.close();
    await playground?.stop();
    if (userDataDir) await rm(userDataDir, { recursive: true, force: true });
  });

  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  const currentSessionId = () => new URLSearchParams(new URL(page.url()).hash.slice(1)).get('session')!;
  const lastReply = () => page.locator('[data-role="assistant"]').last();
  const replyText = async () =>
    (await lastReply().locator('[data-block="text"]').allTextContents()).join('\n');

  /** The session's last message as the server stored it. */
  async function storedReply(sessionId: string): Promise<Msg> {
    const response = await fetch(`${playground.url}/api/agents/quickstart/sessions/${sessionId}/messages`);
    const { messages } = (await response.json()) as { messages: Msg[] };
    return messages.at(-1)!;
  }
  const storedText = (msg: Msg) => msg.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');

  /** Records every text the first text block of the newest reply shows, as the page renders it. */
  async function recordStreamedText(): Promise<void> {
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as any).__seen = seen;
      new MutationObserver(() => {
        const replies = document.querySelectorAll('[data-role="assistant"]');
        const text = replies[replies.length - 1]?.querySelector('[data-block="text"]')?.textContent ?? '';
        if (text && seen.at(-1) !== text) seen.push(text);
      }).observe(document.getElementById('messages')!, { childList: true, subtree: true });
    });
  }

  async function send(text: string): Promise<void> {
    await page.getByLabel('Message', { exact: true }).fill(text);
    await page.getByRole('button', { name: 'Send' }).click();
  }

  /** Waits until the newest reply shows at least `words` words of text, and is still replying. */
  async function waitForPartialText(words: number): Promise<void> {
    await page.waitForFunction(
      (n) => {
        const replies = document.querySelectorAll('[data-role="assistant"]');
        const reply = replies[replies.length - 1];
        const text = reply?.querySelector('[data-block="text"]')?.textContent ?? '';
        return reply?.getAttribute('data-finished-reason') === 'none' && text.trim().split(/\s+/).length >= n;
      },
      words,
      WAIT,
    );
  }

  it('streams a reply as it is written', async () => {
    await page.getByRole('heading', { name: 'No session selected' }).waitFor(WAIT);
    await recordStreamedText();
    await send(DEMO_TASK);
    await waitForPartialText(3);
    expect(await page.getByRole('button', { name: 'Interrupt' }).isEnabled()).toBe(true);
    expect(await page.getByText('The agent is replying…').isVisible()).toBe(true);
    await shot('1-streaming');
    const first = "I'll track this as a task, then look at what is in the sandbox.";
    await page.getByText(first).waitFor(WAIT);
    const seen = (await page.evaluate(() => (window as any).__seen)) as string[];
    // The first sentence appeared a few words at a time, each a prefix of the next.
    const partial = seen.filter((t) => t.length < first.length);
    expect(partial.length).toBeGreaterThanOrEqual(3);
    for (const text of partial) expect(first.startsWith(text)).toBe(true);
    // The session the page created for the message is listed and current.
    const current = page.locator('#sessions [aria-current="true"]');
    expect(await current.textContent()).toContain(DEMO_TASK.slice(0, 20));
  });

  it('asks before write_file in a dialog whose input can be edited, then shows the result card', async () => {
    const dialog = page.getByRole('dialog', { name: 'Allow write_file?' });
    await dialog.waitFor(WAIT);
    const input = dialog.getByLabel(/^Input \(JSON/);
    const shown = await input.inputValue();
    expect(JSON.parse(shown)).toMatchObject({ path: 'summary.md' });
    await shot('2-confirm-dialog');
    await input.fill('{ not json');
    await dialog.getByRole('button', { name: 'Allow' }).click();
    await dialog.getByText('The input must be valid JSON.').waitFor(WAIT);
    await input.fill(shown.replace('"summary.md"', '"edited.md"'));
    await dialog.getByRole('button', { name: 'Allow' }).click();
    await dialog.waitFor({ state: 'hidden', ...WAIT });

    const card = page.locator('article[data-tool-name="write_file"]').last();
    await card.locator('[data-result-state="success"]').waitFor(WAIT);
    expect(await card.locator('.tool-input').textContent()).toContain('"path": "edited.md"');
    expect(await card.locator('.tool-result').textContent()).toMatch(/Wrote \d+ bytes to edited\.md/);
    await page.locator('[data-role="assistant"][data-finished-reason="completed"]').waitFor(WAIT);
    await shot('3-tool-result');

    // The edited input is what ran; the page's rebuilt reply is the stored one.
    const sandbox = join(playground.demoDir, 'sandbox');
    expect(await readFile(join(sandbox, 'edited.md'), 'utf8')).toMatch(/^# Summary of notes\.md/);
    expect(existsSync(join(sandbox, 'summary.md'))).toBe(false);
    const stored = await storedReply(currentSessionId());
    expect(stored.finishedReason).toBe('completed');
    expect(await replyText()).toBe(storedText(stored));
    expect(await lastReply().getAttribute('data-message-id')).toBe(stored.id);
    expect(await lastReply().locator('article.tool-card').count()).toBe(
      stored.content.filter((b) => b.type === 'tool_call').length,
    );
    // The user's message is shown as stored, once.
    expect(await page.locator('[data-role="user"]').allTextContents()).toEqual([`You${DEMO_TASK}`]);
  });

  it('interrupts a running reply', async () => {
    await page.getByRole('button', { name: 'New session' }).click();
    await page.getByRole('heading', { name: /^Session of / }).waitFor(WAIT);
    expect(await page.locator('#sessions li').count()).toBe(2);
    await send('Summarise my notes, please.');
    await waitForPartialText(4);
    await page.getByRole('button', { name: 'Interrupt' }).click();
    await page.locator('[data-role="assistant"][data-finished-reason="interrupted"]').waitFor(WAIT);
    await page.getByText('Interrupted.').waitFor(WAIT);
    await page.getByRole('button', { name: 'Send' }).and(page.locator(':enabled')).waitFor(WAIT);
    await shot('4-interrupted');
    const stored = await storedReply(currentSessionId());
    expect(stored.finishedReason).toBe('interrupted');
    expect(await replyText()).toBe(storedText(stored));
    // It stopped before the script's end (the write it would have asked about).
    expect(stored.content.some((b) => b.type === 'tool_call' && b.name === 'write_file')).toBe(false);
  });

  it('catches up after a reload mid-reply, and ends with the stored text', async () => {
    await page.getByRole('button', { name: 'New session' }).click();
    await page.getByRole('heading', { name: /^Session of / }).waitFor(WAIT);
    await send(DEMO_TASK);
    await waitForPartialText(3);
    const sessionId = currentSessionId();
    await page.reload();
    // The page reopens the session from its URL and follows the reply from its start.
    await page.locator('[data-role="assistant"]').first().waitFor(WAIT);
    expect(currentSessionId()).toBe(sessionId);
    await shot('5-after-reload');
    const dialog = page.getByRole('dialog', { name: 'Allow write_file?' });
    await dialog.waitFor(WAIT);
    const paused = await storedReply(sessionId);
    expect(await replyText()).toBe(storedText(paused));
    // Escape closes the dialog without answering; the waiting card's Review… button opens it again.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden', ...WAIT });
    await page.locator('article[data-call-state="asking"]').getByRole('button', { name: 'Review…' }).click();
    await dialog.getByRole('button', { name: 'Deny' }).click();
    await page.locator('[data-role="assistant"][data-finished-reason="completed"]').waitFor(WAIT);
    await shot('6-caught-up');
    const stored = await storedReply(sessionId);
    expect(await replyText()).toBe(storedText(stored));
    expect(storedText(stored)).toMatch(/Understood: I did not write summary\.md/);
    const card = page.locator('article[data-tool-name="write_file"]').last();
    expect(await card.locator('.tool-result').getAttribute('data-result-state')).toBe('denied');
  });

  it('shows "reconnecting…" when the connection drops mid-reply, and resumes exactly after the last event', async () => {
    // The page, this time through a proxy that can drop its connections.
    proxy = await startCuttableProxy(Number(new URL(playground.url).port));
    await page.goto(`${proxy.url}/`);
    await page.getByRole('button', { name: 'New session' }).click();
    await page.getByRole('heading', { name: /^Session of / }).waitFor(WAIT);
    await send(DEMO_TASK);
    await waitForPartialText(3);
    proxy.cut(1_500);
    await page.getByText('reconnecting…').waitFor(WAIT);
    await shot('7-reconnecting');
    await page.getByRole('dialog', { name: 'Allow write_file?' }).waitFor(WAIT);
    expect(await page.locator('#connection').textContent()).toBe('');
    // Deltas missed or repeated across the drop would make the rebuilt text differ from the stored one.
    const stored = await storedReply(currentSessionId());
    expect(await replyText()).toBe(storedText(stored));
    expect(await lastReply().locator('article.tool-card').count()).toBe(
      stored.content.filter((b) => b.type === 'tool_call').length,
    );
    await page.getByRole('dialog').getByRole('button', { name: 'Deny' }).click();
    await page.locator('[data-role="assistant"][data-finished-reason="completed"]').waitFor(WAIT);
  });

  it('shows stored thinking folded, and markup written by the model as text, never as HTML', async () => {
    const markup = '<img src="x" onerror="window.__injected = true"><b>bold?</b>';
    const state = createAgentState({ sessionId: 'stored-1' });
    state.context.push(createMsg({ role: 'user', content: 'Think aloud.' }), {
      ...createMsg({
        role: 'assistant',
        name: 'quickstart',
        content: [
          { type: 'thinking', id: 'th1', thinking: `Weighing the options… ${markup}` },
          { type: 'text', id: 'tx1', text: markup },
        ],
      }),
      finishedReason: 'completed',
    });
    // Written straight into the server's file store, as another process could.
    await new FileSessionStore({ directory: join(playground.demoDir, 'sessions') }).upsertSession(
      'dev',
      'quickstart',
      'stored-1',
      { state, metadata: { title: markup } },
    );
    await page.goto(`${playground.url}/#session=stored-1`);
    await page.reload();
    const thinking = page.locator('details.thinking');
    await thinking.waitFor(WAIT);
    expect(await thinking.getAttribute('open')).toBeNull();
    await thinking.getByText('Thinking').click();
    expect(await thinking.locator('pre').textContent()).toBe(`Weighing the options… ${markup}`);
    expect(await replyText()).toBe(markup);
    expect(await page.locator('#session-title').textContent()).toBe(markup);
    await shot('8-stored-thinking');
    expect(await page.locator('img, b').count()).toBe(0);
    expect(await page.evaluate(() => (window as any).__injected)).toBeUndefined();
  });

  it('deletes a session from the list', async () => {
    const before = await page.locator('#sessions li').count();
    const sessionId = currentSessionId();
    page.once('dialog', (d) => d.accept());
    await page
      .locator('#sessions [aria-current="true"]')
      .locator('..')
      .getByRole('button', { name: /^Delete session/ })
      .click();
    await page.getByRole('heading', { name: 'No session selected' }).waitFor(WAIT);
    expect(await page.locator('#sessions li').count()).toBe(before - 1);
    const response = await fetch(`${playground.url}/api/agents/quickstart/sessions/${sessionId}`);
    expect(response.status).toBe(404);
  });
});
