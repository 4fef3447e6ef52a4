// Types of scripts/api-reference.mjs for the TypeScript tests that import it.
export interface ManifestItem {
  name: string;
  description?: string;
  type?: { text: string };
  default?: string;
  fieldName?: string;
}
export interface ManifestElement {
  tag: string;
  className: string;
  summary: string;
  description: string;
  modulePath: string;
  attributes: ManifestItem[];
  properties: ManifestItem[];
  methods: ManifestItem[];
  events: ManifestItem[];
  slots: ManifestItem[];
  cssParts: ManifestItem[];
  cssProperties: ManifestItem[];
  cssStates: ManifestItem[];
  classExport: string | undefined;
  defineExport: string | undefined;
}
export const API_REFERENCE: string;
export function elementsOf(manifest: unknown): ManifestElement[];
export function apiMarkdown(manifest: unknown): string;
export function reactTypings(manifest: unknown): string;
export function write(file: string, content: string): void;
