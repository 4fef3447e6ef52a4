/**
 * Datasource nodes of a knowledge pipeline version, as `RagPipelineService.get_datasource_plugins`
 * derives them: every `datasource` node, its workspace credentials, and the pipeline variables its
 * datasource parameters reference (`{{#rag.<node>.<variable>#}}` text, or a variable selector).
 */
import type { DatasourceCredential, DatasourceNode, DatasourceType, RagPipelineVariable } from '../../protocol/index.js';
import type { FixturePipelineVersion, KnowledgeFixture } from './fixture-schema.js';

const VARIABLE_REFERENCE = /^\{\{#([a-zA-Z0-9_]{1,50}(?:\.[a-zA-Z0-9_][a-zA-Z0-9_]{0,29}){1,10})#\}\}/;

export function datasourceNodes(
  version: FixturePipelineVersion,
  credentials: KnowledgeFixture['datasource_credentials'],
): DatasourceNode[] {
  const variables = new Map<string, RagPipelineVariable>();
  for (const v of version.rag_pipeline_variables) variables.set(v.variable, v as RagPipelineVariable);
  const nodes: DatasourceNode[] = [];
  for (const node of version.nodes) {
    const data = node.data;
    if (data.type !== 'datasource') continue;
    const referenced = new Set<string>();
    for (const parameter of Object.values(data.datasource_parameters)) {
      const value = parameter.value;
      if (typeof value === 'string' && value) {
        const match = VARIABLE_REFERENCE.exec(value);
        if (match) referenced.add(match[1]!.split('.').at(-1)!);
      } else if (Array.isArray(value) && value.length) {
        referenced.add(value.at(-1)!);
      }
    }
    const userInputVariables = [...variables.entries()].filter(([name]) => referenced.has(name)).map(([, v]) => v);
    const found = credentials.find((c) => c.plugin_id === data.plugin_id && c.provider_name === data.provider_name);
    const nodeCredentials: DatasourceCredential[] = (found?.credentials ?? []).map((c) => ({
      id: c.id,
      name: c.name,
      type: c.type,
      is_default: c.is_default,
    }));
    nodes.push({
      node_id: node.id,
      plugin_id: data.plugin_id!,
      provider_name: data.provider_name!,
      datasource_type: data.provider_type as DatasourceType,
      title: data.title,
      user_input_variables: userInputVariables,
      credentials: nodeCredentials,
    });
  }
  return nodes;
}
