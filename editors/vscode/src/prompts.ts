/**
 * The client middleware's logic: fill the one JSON argument of a `cairn.*` command
 * with what only the person at the keyboard knows (the reasoning, the decision type,
 * which verdict to re-open) before the command reaches the server. Without it the
 * server would fall back to a markdown draft.
 *
 * Pure: the editor's input boxes and quick picks come in through `Prompter`, so the
 * whole flow is unit-tested without VS Code.
 */

export interface PickItem {
  label: string;
  description?: string;
  detail?: string;
  /** What choosing this item means (a decision type, a verdict id). */
  value: string;
}

export interface InputOptions {
  title: string;
  prompt: string;
  placeHolder?: string;
  value?: string;
  /** An empty answer is refused with this message; undefined allows an empty answer. */
  requiredMessage?: string;
}

export interface Prompter {
  /** Resolves to undefined when the person cancels (Escape). */
  input(options: InputOptions): Promise<string | undefined>;
  pick(items: PickItem[], options: { title: string; placeHolder: string }): Promise<PickItem | undefined>;
  /** Tells the person why nothing happened. */
  error(message: string): void;
}

/** An open verdict (revert or reject) that a supersede can re-open. */
export interface Verdict {
  id: string;
  type: string;
  reasoning: string;
  alternative?: string;
  date?: string;
}

export interface PromptContext {
  /** Open verdicts of an entity, newest first (from diagnostics or the history). */
  openVerdicts(entity: string): Promise<Verdict[]>;
}

/** Commands whose argument this middleware completes; everything else passes through. */
export const WRITE_COMMANDS = ["cairn.log", "cairn.reject", "cairn.revert", "cairn.supersede"] as const;

/** Decision types for `cairn.log`, as the store names them (verdicts have their own commands). */
export const DECISION_TYPES: PickItem[] = [
  { label: "modify", value: "modify", description: "changed how it works" },
  { label: "add", value: "add", description: "added it (a column, a dependency, a field)" },
  { label: "create", value: "create", description: "created it (a table, a module, a route)" },
  { label: "rename", value: "rename", description: "renamed it" },
  { label: "retype", value: "retype", description: "changed its type" },
  { label: "migrate", value: "migrate", description: "migrated data or callers" },
  { label: "index_add", value: "index_add", description: "added an index" },
  { label: "remove", value: "remove", description: "removed it (not because it was wrong)" },
  { label: "delete", value: "delete", description: "deleted it" },
  { label: "index_remove", value: "index_remove", description: "removed an index" },
];

/**
 * The keys each command accepts (lsp/decisions.py `COMMANDS`, plus `uri`, the document
 * that picks the project in a multi-root workspace); the server refuses others.
 */
export const ALLOWED_KEYS: Record<(typeof WRITE_COMMANDS)[number], readonly string[]> = {
  "cairn.log": ["entity", "type", "reason", "alternative", "reverts", "supersedes", "uri"],
  "cairn.reject": ["entity", "alternative", "reason", "uri"],
  "cairn.revert": ["entity", "reason", "reverts", "uri"],
  "cairn.supersede": ["entity", "reason", "of", "uri"],
};

type Arg = Record<string, unknown>;

/**
 * The arguments to send for `command`, or undefined when the person cancelled (then
 * nothing is sent). Values already present are kept: a quick fix that names the
 * verdict to supersede is not asked again.
 */
export async function completeArguments(
  command: string,
  args: unknown[],
  prompter: Prompter,
  context: PromptContext,
): Promise<unknown[] | undefined> {
  if (command === "cairn.history") {
    // The extension renders the history itself, as a markdown preview.
    const arg = normalise(args[0]);
    return "entity" in arg ? [{ ...arg, show: false }, ...args.slice(1)] : args;
  }
  if (!(WRITE_COMMANDS as readonly string[]).includes(command)) {
    return args;
  }
  const arg = normalise(args[0]);
  const rest = args.slice(1);
  const entity = await ensureEntity(arg, command, prompter);
  if (entity === undefined) {
    return undefined;
  }
  switch (command) {
    case "cairn.log": {
      // A code action presets a type (the server's default for drafts); when we are
      // asking for the reasoning anyway, confirm it with the preset offered first.
      if (!nonEmpty(arg.type) || !nonEmpty(arg.reason)) {
        const preset = nonEmpty(arg.type) ? arg.type : undefined;
        const items = preset
          ? [...DECISION_TYPES.filter((i) => i.value === preset), ...DECISION_TYPES.filter((i) => i.value !== preset)]
          : DECISION_TYPES;
        const picked = await prompter.pick(items, {
          title: `Cairn: log a decision on ${entity}`,
          placeHolder: "What kind of change was it?",
        });
        if (!picked) {
          return undefined;
        }
        arg.type = picked.value;
      }
      if (!(await ensureReason(arg, prompter, `Cairn: why ${String(arg.type)} ${entity}?`, "Why was this done? What would someone need to know before changing it?"))) {
        return undefined;
      }
      break;
    }
    case "cairn.reject": {
      if (!nonEmpty(arg.alternative)) {
        const alternative = await prompter.input({
          title: `Cairn: record a rejected alternative for ${entity}`,
          prompt: "Which approach was considered and not taken?",
          placeHolder: "e.g. use Stripe Checkout instead of Elements",
          requiredMessage: "Name the rejected approach.",
        });
        if (alternative === undefined) {
          return undefined;
        }
        arg.alternative = alternative.trim();
      }
      if (!(await ensureReason(arg, prompter, `Cairn: why reject "${String(arg.alternative)}"?`, "Why was it rejected?"))) {
        return undefined;
      }
      break;
    }
    case "cairn.revert": {
      if (!(await ensureReason(arg, prompter, `Cairn: why was ${entity} reverted?`, "What went wrong? The next person to re-add it will see this."))) {
        return undefined;
      }
      break;
    }
    case "cairn.supersede": {
      if (!nonEmpty(arg.of)) {
        const of = await chooseVerdict(entity, arg, prompter, context);
        if (of === undefined) {
          return undefined;
        }
        arg.of = of;
      }
      if (!(await ensureReason(arg, prompter, `Cairn: why re-open the verdict on ${entity}?`, "What changed since the verdict?"))) {
        return undefined;
      }
      break;
    }
  }
  const allowed = ALLOWED_KEYS[command as (typeof WRITE_COMMANDS)[number]];
  const sent = Object.fromEntries(Object.entries(arg).filter(([key]) => allowed.includes(key)));
  return [sent, ...rest];
}

function normalise(first: unknown): Arg {
  if (typeof first === "string") {
    return { entity: first };
  }
  if (first !== null && typeof first === "object" && !Array.isArray(first)) {
    return { ...(first as Arg) };
  }
  return {};
}

function nonEmpty(value: unknown): value is string {
  return typeof value === "string" && value.trim() !== "";
}

async function ensureEntity(arg: Arg, command: string, prompter: Prompter): Promise<string | undefined> {
  if (nonEmpty(arg.entity)) {
    return arg.entity;
  }
  const entity = await prompter.input({
    title: `Cairn: ${command.slice("cairn.".length)}`,
    prompt: "Which entity? (users.email, src/auth.py::Session.login, deps/stripe, env/STRIPE_KEY)",
    requiredMessage: "Name the entity the decision is about.",
  });
  if (entity === undefined) {
    return undefined;
  }
  arg.entity = entity.trim();
  return arg.entity as string;
}

async function ensureReason(arg: Arg, prompter: Prompter, title: string, prompt: string): Promise<boolean> {
  if (nonEmpty(arg.reason)) {
    return true;
  }
  const reason = await prompter.input({
    title,
    prompt,
    requiredMessage: "The reasoning is what makes the decision useful later; please write a sentence.",
  });
  if (reason === undefined) {
    return false;
  }
  arg.reason = reason.trim();
  return true;
}

async function chooseVerdict(
  entity: string,
  arg: Arg,
  prompter: Prompter,
  context: PromptContext,
): Promise<string | undefined> {
  let verdicts = await context.openVerdicts(entity);
  // A quick fix may already know which verdicts its diagnostic is about.
  const hinted = Array.isArray(arg.verdict_ids) ? arg.verdict_ids.filter(nonEmpty) : [];
  if (hinted.length > 0) {
    const known = verdicts.filter((v) => hinted.some((id) => v.id.startsWith(id) || id.startsWith(v.id)));
    verdicts = known.length > 0 ? known : hinted.map((id) => ({ id, type: "verdict", reasoning: "" }));
  }
  if (verdicts.length === 0) {
    prompter.error(`${entity} has no open revert or reject to supersede.`);
    return undefined;
  }
  if (verdicts.length === 1) {
    return verdicts[0].id;
  }
  const picked = await prompter.pick(
    verdicts.map((v) => ({
      label: `${v.type} ${v.id.slice(0, 8)}${v.date ? ` (${v.date})` : ""}`,
      description: v.alternative ? `rejected: ${v.alternative}` : undefined,
      detail: v.reasoning,
      value: v.id,
    })),
    { title: `Cairn: supersede which verdict on ${entity}?`, placeHolder: "Pick the revert or reject to re-open" },
  );
  return picked?.value;
}
