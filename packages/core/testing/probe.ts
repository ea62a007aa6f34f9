import { corpusEntries, corpusSchema, sampleSection } from 'dsh-testing/corpus'
for (const e of corpusEntries()) {
  const s = corpusSchema(e)
  let empty = 'ok'; try { s({}) } catch (err) { empty = 'needs: ' + (err as Error).message.slice(0, 60) }
  for (const optional of [false, true]) {
    const { section, secrets } = sampleSection(s, { optional })
    let ok = 'ok'; try { s(section) } catch (err) { ok = (err as Error).message.slice(0, 80) }
    if (ok !== 'ok' || !optional) console.log(e.ns, optional, ok, secrets.length, empty)
  }
}
