/** The elements' terms module beyond the words: what it prepares for the formatting it offers. */
import { expect, waitUntil } from '@open-wc/testing';

describe('terms', () => {
  it('make a number formatter after the first terms are asked, before any form needs one for its countdown', async () => {
    // A page's first Intl.NumberFormat loads the engine's number data (30–130 ms in Chromium): it
    // must not fall between a run's event and a usable form. Counted from the module's first use.
    const made: unknown[] = [];
    const NumberFormat = Intl.NumberFormat;
    Intl.NumberFormat = new Proxy(NumberFormat, {
      construct(target, args) {
        made.push(args[0]);
        return Reflect.construct(target, args) as object;
      },
    });
    try {
      const { termsFor } = await import('../../../src/elements/shared/terms.js');
      expect(made).to.deep.equal([]);
      expect(termsFor('en').required).to.be.a('string');
      await waitUntil(() => made.length, 'a number formatter made ahead', { timeout: 2000 });
    } finally {
      Intl.NumberFormat = NumberFormat;
    }
  });
});
