/** Drafts: typed values kept per form token in the storage `draft-storage` names. */
import { expect } from '@open-wc/testing';
import { clearDraft, readDraft, writeDraft } from '../../../src/elements/human-input-form/draft-store.js';

describe('draft store', () => {
  afterEach(() => {
    localStorage.removeItem('hitl-draft:t1');
    sessionStorage.removeItem('hitl-draft:t1');
  });

  it('keeps, reads and forgets a draft in local or session storage, or nowhere', () => {
    writeDraft('local', 't1', { comment: 'a' });
    expect(JSON.parse(localStorage.getItem('hitl-draft:t1')!)).to.deep.equal({ comment: 'a' });
    expect(readDraft('local', 't1')).to.deep.equal({ comment: 'a' });
    writeDraft('session', 't1', { comment: 'b' });
    expect(readDraft('session', 't1')).to.deep.equal({ comment: 'b' });
    writeDraft('none', 't1', { comment: 'c' });
    expect(readDraft('none', 't1')).to.deep.equal({});
    clearDraft('local', 't1');
    expect(localStorage.getItem('hitl-draft:t1')).to.be.null;
    expect(readDraft('local', 't1')).to.deep.equal({});
  });

  it('loses only the draft when storage refuses or holds something else', () => {
    const { setItem } = Storage.prototype;
    Storage.prototype.setItem = () => {
      throw new DOMException('full', 'QuotaExceededError');
    };
    try {
      expect(() => writeDraft('local', 't1', { comment: 'a' })).not.to.throw();
    } finally {
      Storage.prototype.setItem = setItem;
    }
    localStorage.setItem('hitl-draft:t1', 'not json');
    expect(readDraft('local', 't1')).to.deep.equal({});
  });
});
