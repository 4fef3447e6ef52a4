/** A user's paste and typing, in a way every engine's event model and test driver supports. */
import { sendKeys } from '@web/test-runner-commands';

/**
 * Pastes `files` onto `target` as the browser does: a `paste` ClipboardEvent carrying a real
 * DataTransfer. Firefox builds a fresh, empty `clipboardData` for a scripted ClipboardEvent
 * whatever it is given, so there the same DataTransfer is attached to the event instead.
 */
export function pasteFiles(target: EventTarget, ...files: File[]): ClipboardEvent {
  const transfer = new DataTransfer();
  for (const file of files) transfer.items.add(file);
  const event = new ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, cancelable: true, composed: true });
  if (event.clipboardData?.files.length !== files.length) Object.defineProperty(event, 'clipboardData', { value: transfer });
  target.dispatchEvent(event);
  return event;
}

/**
 * Types `text` key by key into what has the focus. Spaces go one command each: WebKitWebDriver
 * drops a space that repeats an earlier one in the same key sequence.
 */
export async function typeKeys(text: string): Promise<void> {
  for (const part of text.split(/( )/)) {
    if (part === ' ') await sendKeys({ press: ' ' });
    else if (part) await sendKeys({ type: part });
  }
}

/** Presses the space bar (Firefox's driver knows no key named "Space"). */
export const pressSpace = (): Promise<void> => sendKeys({ press: ' ' });
