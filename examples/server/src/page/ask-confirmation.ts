import type { ConfirmResult, ToolCallBlock } from '@agentkit/core';
import { byId } from './dom';
import { prettyJson } from './render-message';

/**
 * Asks about each call in the page's confirmation dialog: Allow, with the input as the user edited it
 * (it must stay JSON), or Deny. Resolves with the answers, or `null` when the dialog was closed (Escape)
 * before every call was answered.
 */
export async function askConfirmation(calls: ToolCallBlock[]): Promise<ConfirmResult[] | null> {
  const dialog = byId<HTMLDialogElement>('confirm');
  const form = byId<HTMLFormElement>('confirm-form');
  const input = byId<HTMLTextAreaElement>('confirm-input');
  const problem = byId('confirm-error');
  const answers: ConfirmResult[] = [];
  for (const [i, call] of calls.entries()) {
    const shown = prettyJson(call.input);
    byId('confirm-tool').textContent = call.name;
    byId('confirm-count').textContent = calls.length > 1 ? `Call ${i + 1} of ${calls.length}` : '';
    input.value = shown;
    problem.textContent = '';
    dialog.returnValue = '';
    const choice = await new Promise<string>((resolve) => {
      const onSubmit = (event: SubmitEvent) => {
        const value = (event.submitter as HTMLButtonElement | null)?.value;
        if (value === 'allow' && !isJson(input.value)) {
          event.preventDefault();
          problem.textContent = 'The input must be valid JSON.';
          input.focus();
        }
      };
      form.addEventListener('submit', onSubmit);
      dialog.addEventListener(
        'close',
        () => {
          form.removeEventListener('submit', onSubmit);
          resolve(dialog.returnValue);
        },
        { once: true },
      );
      dialog.showModal();
    });
    if (choice !== 'allow' && choice !== 'deny') return null;
    const allowed = choice === 'allow';
    // An unchanged input is sent as the model wrote it; an edited one as compact JSON.
    const edited = input.value === shown ? call.input : JSON.stringify(JSON.parse(input.value));
    answers.push({
      confirmed: allowed,
      toolCall: { id: call.id, name: call.name, input: allowed ? edited : call.input },
    });
  }
  return answers;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
