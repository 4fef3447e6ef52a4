/**
 * Parts of the elements that load apart from them: Markdown rendering with its sanitizer and the
 * file inputs. Nothing on the way to a form's first request needs them, so the script-tag bundle
 * leaves them in chunks beside itself and starts fetching them as it loads, while the session and
 * the run are under way; bundlers split these dynamic imports the same way.
 */

/** A module loaded once, on first use; after a failure the next use tries again. */
export class Lazy<T> {
  readonly #importer: () => Promise<T>;
  #value: T | undefined;
  #pending: Promise<T> | undefined;
  #waiting: ((value: T) => void)[] = [];

  constructor(importer: () => Promise<T>) {
    this.#importer = importer;
  }

  /** The module, once it has loaded. */
  get value(): T | undefined {
    return this.#value;
  }

  /** Loads the module (the one load in flight, or a new one after a failure). */
  load(): Promise<T> {
    return (this.#pending ??= this.#importer().then(
      (value) => {
        this.#value = value;
        for (const use of this.#waiting.splice(0)) use(value);
        return value;
      },
      (error: unknown) => {
        this.#pending = undefined;
        throw error;
      },
    ));
  }

  /** Runs `use` with the module: now if it has loaded, else as soon as a load succeeds. */
  use(use: (value: T) => void): void {
    if (this.#value) return use(this.#value);
    this.#waiting.push(use);
    // A failure is shown by whoever awaits `load()`; this use waits for the retry.
    this.load().catch(() => undefined);
  }
}

/** What `<human-input-form>` needs once it has a form: see `human-input-form/parts.ts`. */
export const formParts = new Lazy(() => import('../human-input-form/parts.js'));
