/** A scripted Prompter: answers in order, records what was asked. */
import type { InputOptions, PickItem, Prompter } from "../../src/prompts";

export type Answer = string | undefined | ((items: PickItem[]) => string | undefined);

export class ScriptedPrompter implements Prompter {
  readonly asked: string[] = [];
  readonly errors: string[] = [];
  readonly picks: PickItem[][] = [];
  readonly inputs: InputOptions[] = [];

  constructor(private readonly answers: Answer[]) {}

  async input(options: InputOptions): Promise<string | undefined> {
    this.asked.push(`input: ${options.title}`);
    this.inputs.push(options);
    const answer = this.next();
    return typeof answer === "function" ? answer([]) : answer;
  }

  async pick(items: PickItem[], options: { title: string }): Promise<PickItem | undefined> {
    this.asked.push(`pick: ${options.title}`);
    this.picks.push(items);
    const answer = this.next();
    const value = typeof answer === "function" ? answer(items) : answer;
    return items.find((item) => item.value === value);
  }

  error(message: string): void {
    this.errors.push(message);
  }

  private next(): Answer {
    if (this.answers.length === 0) {
      throw new Error(`unexpected prompt; asked so far: ${this.asked.join(" | ")}`);
    }
    return this.answers.shift();
  }
}
