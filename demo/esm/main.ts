// The package's classes register nothing when imported: the page picks the tag name. The form
// renders its inputs as elements of their own, so the page registers those (under their names).
import { HumanInputForm } from 'hitl-elements';
import 'hitl-elements/hitl-paragraph/define';
import 'hitl-elements/hitl-select/define';
import 'hitl-elements/hitl-file/define';
import 'hitl-elements/hitl-file-list/define';

customElements.define('acme-review', HumanInputForm);

const registered = ['acme-review', 'human-input-form'].map((tag) => `<${tag}>: ${customElements.get(tag) ? 'registered' : 'not registered'}`);
document.querySelector('#registry')!.textContent = registered.join(', ');
