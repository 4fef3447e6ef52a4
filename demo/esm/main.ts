// The package's classes register nothing when imported: the page picks the tag name.
import { HumanInputForm } from 'hitl-elements';

customElements.define('acme-review', HumanInputForm);

const registered = ['acme-review', 'human-input-form'].map((tag) => `<${tag}>: ${customElements.get(tag) ? 'registered' : 'not registered'}`);
document.querySelector('#registry')!.textContent = registered.join(', ');
