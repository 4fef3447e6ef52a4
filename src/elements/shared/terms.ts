/** Every user-visible string of the elements, per locale; templates never hard-code text. */
export interface Terms {
  loading: string;
  ready: string;
  submitting: string;
  submitted: string;
  waiting: string;
  finished: string;
  failed: string;
  error: string;
  retry: string;
  notDrivable: string;
  formRegion: string;
  chosenAction: (title: string) => string;
  runFinished: string;
  runFailed: (message: string) => string;
}

const en: Terms = {
  loading: 'Loading…',
  ready: 'Ready for your input.',
  submitting: 'Submitting…',
  submitted: 'Submitted.',
  waiting: 'Submitted. Waiting for the next step…',
  finished: 'Done.',
  failed: 'The run failed.',
  error: 'Something went wrong.',
  retry: 'Try again',
  notDrivable: 'This step is answered by email and cannot be completed here.',
  formRegion: 'Input requested',
  chosenAction: (title) => `You chose “${title}”.`,
  runFinished: 'The workflow has finished.',
  runFailed: (message) => `The workflow failed: ${message}`,
};

export const TERMS: Record<string, Terms> = { en };

/** Terms for a BCP 47 tag, falling back to its language, then English. */
export function termsFor(locale: string | undefined): Terms {
  if (!locale) return en;
  return TERMS[locale] ?? TERMS[locale.split('-')[0]!] ?? en;
}

/** The locale in force for an element: the nearest `lang` attribute, else the document's. */
export function localeOf(element: Element): string | undefined {
  return element.closest('[lang]')?.getAttribute('lang') || document.documentElement.lang || undefined;
}
