/** The script-tag bundle's loader of companion terms: `hitl-elements.companions.<locale>.js` beside the bundle. */
import { loadLocale } from './locale-loader.script.js';

export const loadCompanionLocale = (locale: string): Promise<string> => loadLocale(`companions.${locale}`) as Promise<unknown> as Promise<string>;
