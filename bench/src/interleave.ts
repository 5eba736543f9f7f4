import type { Job } from './child';
import { runChild } from './spawn-child';

/** Measurements by cell, then by subject: one value per round. */
export type Cells = Record<string, Record<string, number[]>>;

/**
 * Runs `job(subject)` for every subject in a fresh process, interleaved over `rounds` (the first subject
 * rotated each round), and collects `fields` of the results as `<prefix>.<field>` cells.
 */
export async function interleave<S extends string>(
  prefix: string,
  rounds: number,
  subjects: readonly S[],
  job: (subject: S) => Job,
  fields: readonly string[],
  log: (msg: string) => void,
): Promise<Cells> {
  const out: Cells = Object.fromEntries(fields.map((f) => [`${prefix}.${f}`, {}]));
  for (let r = 0; r < rounds; r++) {
    const order = subjects.map((_, i) => subjects[(i + r) % subjects.length]!);
    for (const subject of order) {
      log(`${prefix} round ${r + 1}/${rounds}: ${subject}`);
      const result = await runChild(job(subject));
      for (const f of fields) (out[`${prefix}.${f}`]![subject] ??= []).push(Number(result[f]));
    }
  }
  return out;
}

/** What run.ts lends a scenario's report: its table and number formats, its cells, its target list. */
export interface ReportKit {
  table(head: string[], rows: string[][]): string;
  fmt(x: number, digits?: number): string;
  times(x: number): string;
  /** `median (min–max)` of a cell over rounds. */
  cellText(cell: string, subject: string, digits?: number): string;
  /** The median of a cell over rounds (NaN when absent). */
  med(cell: string, subject: string): number;
  /** Adds a row to the targets table. */
  check(id: string, target: string, measured: string, pass: boolean | undefined): void;
}
