/**
 * The paths of the operations the form and the session call, `{name}` marking a path parameter
 * (the companions' are in `companion-paths.ts`, so the script-tag bundle's first file holds only
 * these). Kept apart from the table of operations (`operations.ts`, which takes them from here)
 * so an element bundle holds only the few strings it uses; every other part reads paths from the
 * table.
 */
export const RUN_WORKFLOW_PATH = '/workflows/run';
export const WORKFLOW_EVENTS_PATH = '/workflow/{workflow_run_id}/events';
export const FORM_PATH = '/form/human_input/{form_token}';
export const UPLOAD_PATH = '/files/upload';
export const SITE_PATH = '/site';
export const INFO_PATH = '/info';

/** One string per parameter of a path template: `'/a/{x}/b/{y}'` gives `[string, string]`. */
export type PathValues<T extends string> = T extends `${string}{${string}}${infer Rest}` ? [string, ...PathValues<Rest>] : [];

/**
 * `template` with its `{name}` parameters replaced by `values`, in order, each percent-encoded (an
 * id holding `/` or `?` stays one segment). The compiler checks that every parameter is given.
 */
export function pathOf<T extends string>(template: T, ...values: PathValues<T>): string {
  return template.replace(/\{\w+\}/g, () => encodeURIComponent(values.shift()!));
}
