/**
 * Process rules sent with a document: the real service's checks (`process_rule_args_validate`)
 * and the rule as it stores it (`automatic` means fixed rules).
 */
import type { DocForm } from '../../protocol/index.js';
import { badParam } from '../errors.js';
import { AUTOMATIC_RULES, DEFAULT_HIERARCHICAL_RULES, type ResolvedProcessRule, type SegmentationRule } from './chunking.js';

export type ProcessRuleInput = {
  mode: 'automatic' | 'custom' | 'hierarchical';
  rules?: {
    pre_processing_rules?: { id: string; enabled: boolean }[] | null;
    segmentation?: { separator?: string; max_tokens?: number | null; chunk_overlap?: number | null } | null;
    parent_mode?: 'full-doc' | 'paragraph' | null;
    subchunk_segmentation?: { separator?: string; max_tokens?: number | null; chunk_overlap?: number | null } | null;
  } | null;
};

/** Resolves a process rule as the real service stores it (`automatic` uses fixed rules). */
export function resolveRule(input: ProcessRuleInput | undefined | null, docForm: DocForm): ResolvedProcessRule {
  if (!input || input.mode === 'automatic') {
    if (docForm === 'hierarchical_model') return { mode: 'hierarchical', rules: structuredClone(DEFAULT_HIERARCHICAL_RULES) };
    return { mode: 'automatic', rules: structuredClone(AUTOMATIC_RULES) };
  }
  const rules = input.rules ?? {};
  const seg = (s: NonNullable<ProcessRuleInput['rules']>['segmentation'], fallback: SegmentationRule): SegmentationRule => ({
    separator: s?.separator || fallback.separator,
    max_tokens: s?.max_tokens ?? fallback.max_tokens,
    chunk_overlap: s?.chunk_overlap ?? fallback.chunk_overlap,
  });
  const resolved: ResolvedProcessRule = {
    mode: input.mode,
    rules: {
      pre_processing_rules: dedupeRules(rules.pre_processing_rules ?? []),
      segmentation: seg(rules.segmentation, input.mode === 'hierarchical' ? DEFAULT_HIERARCHICAL_RULES.segmentation : { separator: '\n', max_tokens: 500, chunk_overlap: 0 }),
    },
  };
  if (input.mode === 'hierarchical') {
    resolved.rules.parent_mode = rules.parent_mode ?? 'paragraph';
    resolved.rules.subchunk_segmentation = seg(rules.subchunk_segmentation, DEFAULT_HIERARCHICAL_RULES.subchunk_segmentation!);
  }
  return resolved;
}

function dedupeRules(rules: { id: string; enabled: boolean }[]): { id: string; enabled: boolean }[] {
  const byId = new Map<string, { id: string; enabled: boolean }>();
  for (const r of rules) byId.set(r.id, { id: r.id, enabled: r.enabled });
  return [...byId.values()];
}

/** The real service's `process_rule_args_validate`, for rules sent with a document. */
export function checkProcessRule(input: ProcessRuleInput, docForm: string): void {
  if (input.mode === 'automatic') return;
  const rules = input.rules;
  if (!rules) throw badParam('Process rule rules is required');
  if (rules.pre_processing_rules === null || rules.pre_processing_rules === undefined) {
    throw badParam('Process rule pre_processing_rules is required');
  }
  if (!rules.segmentation) throw badParam('Process rule segmentation is required');
  if (!rules.segmentation.separator) throw badParam('Process rule segmentation separator is required');
  if (!(input.mode === 'hierarchical' && rules.parent_mode === 'full-doc') && !rules.segmentation.max_tokens) {
    throw badParam('Process rule segmentation max_tokens is required');
  }
  if (input.mode === 'hierarchical' && docForm !== 'hierarchical_model') {
    throw badParam('Process rule mode hierarchical needs doc_form hierarchical_model.');
  }
  if (input.mode !== 'hierarchical' && docForm === 'hierarchical_model') {
    throw badParam('doc_form hierarchical_model needs process rule mode hierarchical.');
  }
}
