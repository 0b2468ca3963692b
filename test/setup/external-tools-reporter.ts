/**
 * The run's last word on external programs (issue 23): when a test file asked for promtool or
 * Chromium and it was missing (test/helpers/external-tools.ts), one block after vitest's
 * summary lists each missing tool with why, the files and tests that did not run for it, and the
 * one command that installs the tools. Silent when nothing was missing. Listed after 'default'
 * in vitest.config.ts so it prints last.
 */
import { relative } from 'node:path';
import type { Reporter, TestModule, Vitest } from 'vitest/node';
import { INSTALL_COMMAND, readToolRecords, TOOLS, toolRecordsDir, type ToolName, type ToolRecord } from '../helpers/external-tools.js';

/** The block's lines, from the records and the run's results; [] when nothing was missing. */
export function skippedToolsBlock(records: ToolRecord[], modules: ReadonlyArray<TestModule>, root: string): string[] {
  if (records.length === 0) return [];
  const ci = records.some((r) => r.ci);
  const byTool = new Map<ToolName, ToolRecord[]>();
  for (const r of records) byTool.set(r.tool, [...(byTool.get(r.tool) ?? []), r]);
  const tools = [...byTool.keys()].sort();
  const body: string[] = [];
  let count = 0;
  for (const tool of tools) {
    const rs = byTool.get(tool)!.sort((a, b) => a.file.localeCompare(b.file));
    body.push(`  ${tool} (Debian package ${TOOLS[tool].debianPackage}): ${rs[0]!.reason}`);
    for (const r of rs) {
      const module = modules.find((m) => relative(root, m.moduleId) === r.file);
      const skipped = module ? [...module.children.allTests()].filter((t) => t.result().state === 'skipped' && t.options.mode === 'skip') : [];
      count += skipped.length;
      const what = r.ci ? 'the file failed' : skipped.length === 0 ? 'its tests ran without it' : `${skipped.length} skipped`;
      body.push(`    ${r.file}: ${what} (needs it for ${r.uses})`);
      for (const t of skipped) body.push(`      - ${t.fullName}`);
    }
  }
  const rule = '─'.repeat(100);
  return [
    rule,
    ci
      ? `Missing with CI set, so the files that need them failed: ${tools.join(', ')}`
      : `Skipped ${count} tests (and the checks listed): ${tools.join(', ')} not found here, and npm cannot install ${tools.length === 1 ? 'it' : 'them'}. With CI set this fails instead.`,
    ...body,
    'Install them (Debian or Ubuntu, as root), then run `npm test` again:',
    `  ${INSTALL_COMMAND}`,
    rule,
  ];
}

export default class ExternalToolsReporter implements Reporter {
  private vitest!: Vitest;

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const block = skippedToolsBlock(readToolRecords(toolRecordsDir(process.pid)), modules, this.vitest.config.root);
    if (block.length > 0) this.vitest.logger.log(['', ...block, ''].join('\n'));
  }
}
