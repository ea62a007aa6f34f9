/**
 * The page's own words in its two languages, and which one it speaks: the
 * reader's pick (kept in `localStorage`), else the browser's languages (any
 * `zh` reads Chinese), else English. Plugins' descriptions are picked by the
 * form model for the same locale. Numbers and dates go through `Intl` in it.
 */

import { FIELD_ISSUE_ENGLISH, type FieldIssue, type FieldIssueCode } from '../model/index.ts'

/** The languages the page speaks. */
export type PageLocale = 'en-US' | 'zh-CN'

/** The page's languages, each named in itself, for the switch. */
export const PAGE_LOCALES: readonly { locale: PageLocale; name: string }[] = [
  { locale: 'en-US', name: 'English' },
  { locale: 'zh-CN', name: '简体中文' },
]

const en = {
  settings: 'Settings',
  language: 'Language',
  connection: { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…', closed: 'Disconnected' },
  needsToken: 'This page needs its access token. Open the address that the host printed (it ends in #token=…).',
  openFile: 'Open settings file',
  history: 'History',
  readOnly: 'The settings provider cannot save changes; the forms are read-only.',
  readFailed: (why: string) => `Could not read the settings: ${why}`,
  tryAgain: 'Try again',
  loading: 'Loading…',
  namespaces: 'Namespaces',
  noneRegistered: (scoped: boolean): string => `No plugin registered settings${scoped ? ' that this scope can hold' : ''}.`,
  needsSetupList: 'Needs setup',
  needsSetupBadge: 'Needs setup',
  needsSetupText: (paths: string) => `This plugin waits for values it requires: ${paths}. It starts as soon as they are saved.`,
  appliesAfterRestart: 'Applies after restart',
  appliesAfterRestartTitle: 'Changes take effect after the host restarts',
  notRegisteredHere: 'Not registered in this scope',
  resetSection: (scoped: boolean): string => (scoped ? 'Reset section to inherited' : 'Reset section to defaults'),
  notSaved: 'Not saved:',
  changedSince: 'this section changed since you opened it.',
  changed: (list: string) => `Changed: ${list}.`,
  secretMark: 'secret',
  reload: 'Reload',
  reapply: 'Re-apply my edit',
  changedElsewhere: 'This section changed elsewhere while you were editing it.',
  loadNew: 'Load the new values',
  notInEffect: 'The stored settings of this section are not in effect',
  atPath: (path: string) => ` (at ${path})`,
  lastGood: 'The values shown are the last good ones.',
  noFields: 'This namespace has no editable fields.',
  wholeSection: 'the whole section',
  layer: {
    scope: 'set in this scope',
    inherited: 'inherited from the global settings',
    global: 'set in the settings file',
    base: 'supplied by the plugin',
    defaults: 'from the schema default',
  },
  migrated: (from: number, to: number, steps: string) => `Migrated from version ${from} to version ${to}${steps}.`,
  migrationPending: (stored: number, to: number, steps: string) => `Stored at version ${stored}: it is read as version ${to}${steps}, and written back the next time the plugin starts.`,
  migrationNewer: (stored: number, to: number) => `Stored at version ${stored}, newer than this plugin's version ${to}: it is read as it is.`,
  notUsed: 'Not used by this plugin',
  notUsedText: 'The stored settings hold these keys, but this plugin does not declare them: left over from an earlier version, or typed by hand. Their values are kept and never shown here.',
  notUsedBase: 'in the deployment file (cordis.yml); remove it there',
  notUsedGlobal: 'in the global settings; remove it there',
  remove: 'Remove',
  removeNamed: (name: string) => `Remove ${name}`,
  scope: 'Scope',
  global: 'Global',
  openScope: 'Open scope',
  open: 'Open',
  searchLabel: 'Search settings',
  searchPlaceholder: 'key, title or description',
  modifiedOnly: 'Modified only',
  modifiedHint: (scoped: boolean): string => (scoped ? 'Fields this scope sets itself.' : 'Fields the settings file sets.'),
  nothingMatches: (text: string, modified: boolean) => `Nothing matches${text ? ` “${text}”` : ''}${modified ? ' among the modified fields' : ''}.`,
  showing: (shown: string, total: string, one: boolean) => `Showing ${shown} of ${total} ${one ? 'namespace' : 'namespaces'}.`,
  clearSearch: 'Clear search',
  modified: 'modified',
  setHere: 'set in this scope',
  setInFile: 'Set in the settings file',
  required: 'required',
  overridesInherited: 'Overrides the inherited value ',
  inherited: 'Inherited: ',
  resetField: (label: string, scoped: boolean) => (scoped ? `Reset ${label} to inherited` : `Reset ${label} to default`),
  defaultChoice: (value: string) => `Default (${value})`,
  choose: 'Choose…',
  noItems: 'No items.',
  noEntries: 'No entries.',
  itemName: (label: string, index: string) => `${label} item ${index}`,
  moveUp: (name: string) => `Move ${name} up`,
  moveDown: (name: string) => `Move ${name} down`,
  addItem: (label: string) => `Add ${label} item`,
  secretOrder: 'These items hold secrets, so they keep their order.',
  renameTo: (entry: string) => `New name for ${entry}`,
  rename: 'Rename',
  renameNamed: (entry: string) => `Rename ${entry}`,
  cancel: 'Cancel',
  newKey: (label: string) => `New ${label} key`,
  add: 'Add',
  notSet: 'Not set',
  secretSet: (where: string) => `Set, ${where}`,
  newSecret: (label: string) => `New value for ${label}`,
  saveNamed: (label: string) => `Save ${label}`,
  replaceNamed: (label: string) => `Replace ${label}`,
  clearNamed: (label: string) => `Clear ${label}`,
  expectedNumber: 'expected a number',
  form: (label: string) => `Form of ${label}`,
  noForm: 'The stored value has none of these forms; pick one to replace it.',
  notEditable: (reason: string) => `Not editable here: ${reason}.`,
  codeFunction: "this value is a function, which only the plugin's code can supply",
  codeClass: "this value is an object of a class, which only the plugin's code can supply",
  codeNever: 'this field takes no value',
  noEditor: (reason: string) => `${reason}; edit the settings file`,
  jsonHint: 'Any JSON value. Saved when it parses.',
  jsonInvalid: 'not valid JSON',
  flags: (count: string) => `${count} selected`,
  key: 'Key',
  value: 'Value',
  typeWords: { string: 'text', number: 'number', boolean: 'on / off', object: 'settings', array: 'list', tuple: 'list', dict: 'table', any: 'JSON' } as Record<string, string>,
  // History
  differsHidden: 'Differs (not shown)',
  secretSetHidden: 'Set (secret, not shown)',
  secretReplaced: 'Replaced (secret, not shown)',
  undeclaredSet: 'Set (not used by this plugin, not shown)',
  replacedHidden: 'Replaced (not shown)',
  versionMigrated: (from: number, to: number, steps: string) => `Migrated from version ${from} to version ${to}${steps}.`,
  versionStored: (from: number, to: number) => `Stored at version ${from} in this version, at version ${to} now.`,
  restoreSection: 'Restore this section',
  unregisteredDiff: 'No plugin registers this namespace now, so its fields are not compared and it cannot be restored from here.',
  field: 'Field',
  inThisVersion: 'In this version',
  now: 'Now',
  withheldNote: 'Some fields differ in ways not shown here (secrets, keys the plugin does not declare).',
  versionWritten: (when: string, who: string) => `Version written ${when} by ${who}`,
  selectedVersion: 'Selected version',
  diffIntro: "What differs between this version and the settings now. Restoring writes the version's values back; the settings it replaces are kept as a version too.",
  comparing: 'Comparing…',
  compareFailed: (why: string) => `Could not compare this version: ${why}`,
  sameAsNow: 'This version matches the current settings.',
  restoreVersion: 'Restore this version',
  restoreFailed: (why: string) => `Could not restore this version: ${why}`,
  noSection: 'no section',
  by: (who: string) => `by ${who}`,
  changedSections: (list: string) => `Changed: ${list}`,
  historyIntro: 'Versions of the settings file kept each time it was replaced, newest first. Pick one to see how it differs from the settings now.',
  historyFailed: (why: string) => `Could not read the history: ${why}`,
  noVersions: 'No version is kept yet. One is kept each time the settings file is replaced.',
  keptVersions: 'Kept versions',
  loadMore: 'Load more',
  pickVersion: 'Pick a version to compare it with the settings now.',
  who: { plugin: 'this host (plugin)', wire: 'this host (wire)', host: 'this host', migration: 'this host (migration)', outside: 'an outside edit', unknown: 'unknown (no record left)' } as Record<string, string>,
  and: ' and ',
  sectionIn: (ns: string, scope: string) => `${ns} in ${scope}`,
  restoreConflict: (what: string) => `${what} changed since the difference was read, so nothing was restored. Look at the new difference and try again.`,
  theSettings: 'The settings',
  restored: (list: string) => `Restored ${list} from the selected version.`,
  nothingToRestore: 'Nothing to restore: this version matches the current settings.',
  skipped: (list: string) => ` Skipped ${list}: no plugin registers it now.`,
  refreshFailed: (why: string) => `Could not refresh: ${why}`,
  saved: (where: string) => `Saved ${where}.`,
  saveFailed: (where: string, why: string) => `Could not save ${where}: ${why}`,
  noLongerDescribed: 'The section changed and is no longer described.',
  editNoLonger: (why: string) => `Your edit no longer applies: ${why}`,
  openedFile: 'Opened the settings file in its editor.',
  openFailed: (why: string) => `Could not open the settings file: ${why}`,
  mismatchNote: 'One of the two versions of this section does not fit its schema, so no values are shown.',
  differCaption: (name: string) => `Fields of ${name} that differ`,
  badScope: 'A scope id is <kind>/<id>: lowercase letters, digits and hyphens, for example preset/coder.',
  sectionGone: 'this section is no longer shown',
  resolveFirst: 'resolve the conflict shown above first',
  onKey: (text: string) => `key: ${text}`,
  issue: FIELD_ISSUE_ENGLISH as Record<FieldIssueCode, (params: Record<string, string | number>) => string>,
}

/** Every text the page shows, in one language. */
export type PageMessages = typeof en

const zh: PageMessages = {
  settings: '设置',
  language: '语言',
  connection: { connecting: '正在连接…', live: '已连接', reconnecting: '正在重新连接…', closed: '已断开' },
  needsToken: '此页面需要访问令牌。请打开宿主打印的地址（以 #token=… 结尾）。',
  openFile: '打开设置文件',
  history: '历史',
  readOnly: '设置提供者无法保存更改，表单为只读。',
  readFailed: (why) => `无法读取设置：${why}`,
  tryAgain: '重试',
  loading: '正在加载…',
  namespaces: '命名空间',
  noneRegistered: (scoped) => (scoped ? '没有插件注册此作用域可保存的设置。' : '没有插件注册设置。'),
  needsSetupList: '需要设置',
  needsSetupBadge: '需要设置',
  needsSetupText: (paths) => `此插件正在等待必填的值：${paths}。保存后立即启动。`,
  appliesAfterRestart: '重启后生效',
  appliesAfterRestartTitle: '更改在宿主重启后生效',
  notRegisteredHere: '未在此作用域注册',
  resetSection: (scoped) => (scoped ? '将本节重置为继承值' : '将本节重置为默认值'),
  notSaved: '未保存：',
  changedSince: '打开后此节已被更改。',
  changed: (list) => `已更改：${list}。`,
  secretMark: '密钥',
  reload: '重新加载',
  reapply: '重新应用我的修改',
  changedElsewhere: '你编辑期间此节在别处被更改。',
  loadNew: '加载新值',
  notInEffect: '此节保存的设置未生效',
  atPath: (path) => `（位于 ${path}）`,
  lastGood: '显示的是最后一次有效的值。',
  noFields: '此命名空间没有可编辑的字段。',
  wholeSection: '整个节',
  layer: {
    scope: '在此作用域设置',
    inherited: '继承自全局设置',
    global: '在设置文件中设置',
    base: '由插件提供',
    defaults: '来自架构默认值',
  },
  migrated: (from, to, steps) => `已从版本 ${from} 迁移到版本 ${to}${steps}。`,
  migrationPending: (stored, to, steps) => `保存于版本 ${stored}：按版本 ${to} 读取${steps}，并在插件下次启动时写回。`,
  migrationNewer: (stored, to) => `保存于版本 ${stored}，比此插件的版本 ${to} 更新：按原样读取。`,
  notUsed: '此插件未使用',
  notUsedText: '保存的设置包含这些键，但此插件并未声明：可能是旧版本遗留的，或是手动输入的。它们的值会被保留，且不会在此显示。',
  notUsedBase: '位于部署文件（cordis.yml）中；请在那里删除',
  notUsedGlobal: '位于全局设置中；请在那里删除',
  remove: '删除',
  removeNamed: (name) => `删除 ${name}`,
  scope: '作用域',
  global: '全局',
  openScope: '打开作用域',
  open: '打开',
  searchLabel: '搜索设置',
  searchPlaceholder: '键、标题或描述',
  modifiedOnly: '仅显示已修改',
  modifiedHint: (scoped) => (scoped ? '此作用域自己设置的字段。' : '设置文件中设置的字段。'),
  nothingMatches: (text, modified) => `${modified ? '已修改的字段中' : ''}没有匹配${text ? `“${text}”` : ''}的项。`,
  showing: (shown, total) => `显示 ${total} 个命名空间中的 ${shown} 个。`,
  clearSearch: '清除搜索',
  modified: '已修改',
  setHere: '在此作用域设置',
  setInFile: '在设置文件中设置',
  required: '必填',
  overridesInherited: '覆盖继承值 ',
  inherited: '继承值：',
  resetField: (label, scoped) => (scoped ? `将 ${label} 重置为继承值` : `将 ${label} 重置为默认值`),
  defaultChoice: (value) => `默认（${value}）`,
  choose: '请选择…',
  noItems: '没有项目。',
  noEntries: '没有条目。',
  itemName: (label, index) => `${label} 第 ${index} 项`,
  moveUp: (name) => `上移 ${name}`,
  moveDown: (name) => `下移 ${name}`,
  addItem: (label) => `添加 ${label} 项目`,
  secretOrder: '这些项目包含密钥，因此保持原有顺序。',
  renameTo: (entry) => `${entry} 的新名称`,
  rename: '重命名',
  renameNamed: (entry) => `重命名 ${entry}`,
  cancel: '取消',
  newKey: (label) => `新的 ${label} 键`,
  add: '添加',
  notSet: '未设置',
  secretSet: (where) => `已设置，${where}`,
  newSecret: (label) => `${label} 的新值`,
  saveNamed: (label) => `保存 ${label}`,
  replaceNamed: (label) => `替换 ${label}`,
  clearNamed: (label) => `清除 ${label}`,
  expectedNumber: '应为数字',
  form: (label) => `${label} 的形式`,
  noForm: '保存的值不符合其中任何一种形式；选择一种以替换它。',
  notEditable: (reason) => `无法在此编辑：${reason}。`,
  codeFunction: '此值是一个函数，只能由插件代码提供',
  codeClass: '此值是某个类的对象，只能由插件代码提供',
  codeNever: '此字段不接受任何值',
  noEditor: (reason) => `${reason}；请编辑设置文件`,
  jsonHint: '任意 JSON 值。可以解析时保存。',
  jsonInvalid: '不是有效的 JSON',
  flags: (count) => `已选 ${count} 项`,
  key: '键',
  value: '值',
  typeWords: { string: '文本', number: '数字', boolean: '开关', object: '设置', array: '列表', tuple: '列表', dict: '表', any: 'JSON' },
  differsHidden: '不同（不显示）',
  secretSetHidden: '已设置（密钥，不显示）',
  secretReplaced: '已替换（密钥，不显示）',
  undeclaredSet: '已设置（此插件未使用，不显示）',
  replacedHidden: '已替换（不显示）',
  versionMigrated: (from, to, steps) => `已从版本 ${from} 迁移到版本 ${to}${steps}。`,
  versionStored: (from, to) => `此版本中保存于版本 ${from}，现在为版本 ${to}。`,
  restoreSection: '恢复此节',
  unregisteredDiff: '现在没有插件注册此命名空间，因此不比较其字段，也无法在此恢复。',
  field: '字段',
  inThisVersion: '此版本中',
  now: '现在',
  withheldNote: '部分字段的差异未在此显示（密钥、插件未声明的键）。',
  versionWritten: (when, who) => `由 ${who} 于 ${when} 写入的版本`,
  selectedVersion: '所选版本',
  diffIntro: '此版本与当前设置的差异。恢复会写回此版本的值；被替换的设置也会保留为一个版本。',
  comparing: '正在比较…',
  compareFailed: (why) => `无法比较此版本：${why}`,
  sameAsNow: '此版本与当前设置一致。',
  restoreVersion: '恢复此版本',
  restoreFailed: (why) => `无法恢复此版本：${why}`,
  noSection: '无',
  by: (who) => `由 ${who}`,
  changedSections: (list) => `更改：${list}`,
  historyIntro: '每次替换设置文件时保留的版本，最新的在前。选择一个查看它与当前设置的差异。',
  historyFailed: (why) => `无法读取历史：${why}`,
  noVersions: '尚未保留任何版本。每次替换设置文件时会保留一个版本。',
  keptVersions: '保留的版本',
  loadMore: '加载更多',
  pickVersion: '选择一个版本，与当前设置比较。',
  who: { plugin: '本宿主（插件）', wire: '本宿主（远程）', host: '本宿主', migration: '本宿主（迁移）', outside: '外部编辑', unknown: '未知（无记录）' },
  and: ' 和 ',
  sectionIn: (ns, scope) => `${scope} 中的 ${ns}`,
  restoreConflict: (what) => `读取差异后 ${what} 已被更改，因此未恢复任何内容。请查看新的差异后重试。`,
  theSettings: '设置',
  restored: (list) => `已从所选版本恢复 ${list}。`,
  nothingToRestore: '无需恢复：此版本与当前设置一致。',
  skipped: (list) => ` 已跳过 ${list}：现在没有插件注册它。`,
  refreshFailed: (why) => `无法刷新：${why}`,
  saved: (where) => `已保存 ${where}。`,
  saveFailed: (where, why) => `无法保存 ${where}：${why}`,
  noLongerDescribed: '此节已更改，不再可用。',
  editNoLonger: (why) => `你的修改已不再适用：${why}`,
  openedFile: '已在编辑器中打开设置文件。',
  openFailed: (why) => `无法打开设置文件：${why}`,
  mismatchNote: '此节的两个版本之一不符合其架构，因此不显示任何值。',
  differCaption: (name) => `${name} 中不同的字段`,
  badScope: '作用域 id 的格式为 <kind>/<id>：小写字母、数字和连字符，例如 preset/coder。',
  sectionGone: '此节已不再显示',
  resolveFirst: '请先解决上方显示的冲突',
  onKey: (text) => `键：${text}`,
  issue: {
    'min-length': (p) => `至少需要 ${p.min} 个字符`,
    'max-length': (p) => `最多 ${p.max} 个字符`,
    pattern: (p) => `文本应匹配 ${p.pattern}`,
    finite: () => '应为有限的数字',
    min: (p) => `数字不能小于 ${p.min}`,
    max: (p) => `数字不能大于 ${p.max}`,
    step: (p) => `应为 ${p.step} 的倍数${p.from ? `（从 ${p.from} 起）` : ''}`,
    object: () => '应为对象',
    list: () => '应为列表',
    'tuple-length': (p) => `应为包含 ${p.count} 项的列表`,
    'tuple-max': (p) => `最多 ${p.count} 项`,
    'one-of': (p) => `应为以下之一：${p.choices}`,
    'any-form': () => '值不符合任何允许的形式',
    text: () => '应为文本',
    number: () => '应为数字',
    boolean: () => '应为真或假',
    constant: (p) => `应为 ${p.value}`,
    required: () => '此项必填',
  },
}

const MESSAGES: Record<PageLocale, PageMessages> = { 'en-US': en, 'zh-CN': zh }
const STORAGE_KEY = 'dsh-settings-locale'

/** The texts of the language the page speaks now (a live binding: it changes with {@link setPageLocale}). */
export let m: PageMessages = en
let current: PageLocale = 'en-US'

/** The language the page speaks now. */
export function pageLocale(): PageLocale {
  return current
}

/** The nearest page language to a BCP 47 tag: any Chinese reads `zh-CN`, any other `en-US`. */
export function nearestPageLocale(tag: string): PageLocale {
  return /^zh\b/i.test(tag) ? 'zh-CN' : 'en-US'
}

/** What the reader picked before (kept in `storage`), else the first of the browser's languages the page speaks, else English. */
export function initialPageLocale(storage: Pick<Storage, 'getItem'> | undefined, languages: readonly string[]): PageLocale {
  const picked = storage?.getItem(STORAGE_KEY)
  if (picked === 'en-US' || picked === 'zh-CN') return picked
  for (const tag of languages) if (/^(zh|en)\b/i.test(tag)) return nearestPageLocale(tag)
  return 'en-US'
}

/** Speak `locale` from now on: the texts, the document's `lang`, and (with `storage`) the reader's pick, kept for the next visit. */
export function setPageLocale(locale: PageLocale, storage?: Pick<Storage, 'setItem'>): void {
  current = locale
  m = MESSAGES[locale]
  if (typeof document !== 'undefined') {
    document.documentElement.lang = locale
    document.title = m.settings
  }
  try {
    storage?.setItem(STORAGE_KEY, locale)
  } catch {
    // A browser that refuses storage (private mode) still switches, for this visit.
  }
}

/** A problem the form model found with a typed value, in the page's language. */
export function showIssue(issue: FieldIssue): string {
  const text = m.issue[issue.code]?.(issue.params ?? {}) ?? issue.message
  return issue.onKey ? m.onKey(text) : text
}

/** A number as the page's language writes it. */
export function showNumber(value: number): string {
  return new Intl.NumberFormat(current).format(value)
}

/** The texts of one language, for tests that check both. */
export function messagesOf(locale: PageLocale): PageMessages {
  return MESSAGES[locale]
}
