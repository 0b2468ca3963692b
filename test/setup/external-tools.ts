/**
 * Vitest global setup: looks for each external program once per run (test/helpers/external-tools.ts)
 * and hands the answers, and the directory where test files record what they skipped, to every
 * file through `inject`. The two projects (parallel, serial) each run this setup; the first
 * one's answers are kept on the process, so each tool is run once.
 */
import { rmSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { locateTool, TOOLS, toolRecordsDir, type Located, type ToolName } from '../helpers/external-tools.js';

const FOUND = Symbol.for('herald.externalTools');

interface Found {
  tools: Record<ToolName, Located>;
  dir: string;
}

export default function setup(project: TestProject): () => void {
  const g = globalThis as { [FOUND]?: Found };
  if (!g[FOUND]) {
    const dir = toolRecordsDir(process.pid);
    rmSync(dir, { recursive: true, force: true });
    const tools = Object.fromEntries(Object.keys(TOOLS).map((name) => [name, locateTool(name as ToolName)])) as Record<ToolName, Located>;
    g[FOUND] = { tools, dir };
  }
  const found = g[FOUND];
  project.provide('externalTools', found.tools);
  project.provide('externalToolRecords', found.dir);
  // Teardown runs after the reporters' last word (vitest closes the projects after the run ends).
  return () => rmSync(found.dir, { recursive: true, force: true });
}
