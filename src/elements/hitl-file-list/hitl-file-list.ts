import type { FileReference } from '../../protocol/index.js';
import { HitlFile } from '../hitl-file/hitl-file.js';
import { styles } from './hitl-file-list.styles.js';

/**
 * A file input that takes several files, up to the input's `number_limits` (0: no limit).
 * Everything else is as in `<hitl-file>`; its value is the list of file references.
 *
 * @summary A form's file-list input.
 * @tag hitl-file-list
 *
 * @fires {Event} change - A file was added, uploaded, failed or removed.
 *
 * @csspart label - The visible label.
 * @csspart files - The group of everything below the label; its description says whether the input is required and why its value is invalid.
 * @csspart file - One file.
 * @csspart file-name - Its name.
 * @csspart file-size - Its size.
 * @csspart progress - Its upload progress bar.
 * @csspart file-error - Why its upload failed.
 * @csspart file-button - Its retry, cancel or remove button.
 * @csspart dropzone - Where files are dropped.
 * @csspart choose - The button that opens the file picker.
 * @csspart url - The link entry.
 * @csspart url-input - Its text field.
 * @csspart url-button - Its add button.
 * @csspart hint - Accepted types and limits.
 * @csspart error - The validation or server message.
 *
 * @cssproperty --hitl-accent - Focus ring, progress and drop highlight colour.
 * @cssproperty --hitl-border-color - Border colour.
 * @cssproperty --hitl-error-color - Colour of messages; default a red for light or dark `color-scheme`.
 * @cssproperty --hitl-muted-color - Colour of sizes and hints; default the text colour, faded.
 * @cssproperty --hitl-input-background - Background of the link field; default `Canvas`, which follows the page's `color-scheme`.
 * @cssproperty --hitl-input-color - Text colour of the link field; default `CanvasText`.
 * @cssproperty --hitl-button-background - Background of the buttons; default `Canvas`.
 * @cssproperty --hitl-button-color - Text colour of the buttons; default `CanvasText`.
 *
 * @cssstate user-invalid - The value was changed or submitted and cannot be submitted.
 * @cssstate dragging - Files are dragged over the drop zone.
 */
export class HitlFileList extends HitlFile {
  static override styles = styles;

  protected override get max(): number {
    const config = this.config;
    return (config?.type === 'file-list' && config.number_limits) || Infinity;
  }

  override get value(): FileReference[] {
    return this.files;
  }
}
