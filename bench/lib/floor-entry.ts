/** The form bench's floor: marked and DOMPurify as a page gets them bare (bench/rows/form-render.ts). */
import DOMPurify from 'dompurify';
import { marked } from 'marked';

(globalThis as unknown as { floor: unknown }).floor = { marked, DOMPurify };
