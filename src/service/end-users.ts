/**
 * End users: the real service gives each `user` string of an app an end-user record with its own
 * id, which is what `created_by` fields carry. The API's own users and web-app users never mix.
 */
import { uuid } from './ids.js';

/** The user the real service assumes when an optional `user` is omitted. */
export const DEFAULT_USER = 'DEFAULT-USER';

export class EndUsers {
  readonly #ids = new Map<string, string>();

  /** The end-user id of `user` in `appId`, created on first use. */
  idOf(appId: string, user: string): string {
    const key = `${appId}\u0000${user}`;
    let id = this.#ids.get(key);
    if (!id) {
      id = uuid();
      this.#ids.set(key, id);
    }
    return id;
  }

  clear(): void {
    this.#ids.clear();
  }
}
