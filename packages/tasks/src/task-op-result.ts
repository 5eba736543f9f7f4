import type { TasksState } from './task';

/** What a task operation returns: the text for the model, whether it failed, and the (new) task list. */
export interface TaskOpResult {
  /** The tool result text, exactly as the model sees it. */
  text: string;
  /** `true` for an error result (unknown id, invalid input). */
  isError: boolean;
  /** The task list after the operation; the same object when nothing changed. */
  state: TasksState;
}
