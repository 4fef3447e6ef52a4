/** Attribute converters of `<human-input-form>`. */

/** A JSON attribute; one that does not parse is said in the console rather than dropped unseen. */
export const json = {
  fromAttribute(value: string | null): unknown {
    try {
      return value === null ? null : JSON.parse(value);
    } catch {
      console.warn('<human-input-form>: this attribute is not JSON and is ignored:', value);
      return null;
    }
  },
};

/** A list separated by spaces or commas. */
export const list = { fromAttribute: (value: string | null) => value?.split(/[\s,]+/) ?? [] };
