/**
 * Quick fixes: a precise edit offered with a finding (a lint, or a validation error where
 * the remedy is unambiguous). A fix is pure: it returns a new object (and maybe new
 * documents, e.g. a missing binding) and never mutates its input.
 */

/** A value the user types before a fix applies (e.g. the resources to narrow `*` to). */
export interface FixParam {
  name: string;
  label: string;
  /** Prefilled value, also what tests apply with. */
  default: string;
  /** Shown in the empty input. */
  placeholder?: string;
}

/** What a fix may read besides the object. */
export interface FixInput {
  /** Values of the fix's params, by name (missing ones take their default). */
  params?: Readonly<Record<string, string>>;
  /** Every object of the workspace (to pick names that are not taken). */
  workspace?: readonly unknown[];
}

export interface FixResult {
  object: unknown;
  /** Documents to add to the workspace beside the object (e.g. a binding). */
  newDocuments?: unknown[];
}

export interface Fix {
  /** Imperative and short: "Exclude kube-system and hooks in namespaceSelector". */
  title: string;
  /** What to know before applying (a trade-off), shown in the preview. */
  note?: string;
  params?: readonly FixParam[];
  apply(object: unknown, input?: FixInput): FixResult;
}

/** The value of a param (typed, or its default). */
export const paramValue = (fix: Pick<Fix, 'params'>, input: FixInput | undefined, name: string): string =>
  input?.params?.[name] ?? fix.params?.find((p) => p.name === name)?.default ?? '';
