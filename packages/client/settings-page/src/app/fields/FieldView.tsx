import type { Field } from '../../model/index.ts'
import { fieldId, showValue } from '../format.ts'
import type { SectionApi } from './api.ts'
import { ChoiceInput } from './ChoiceInput.tsx'
import { Collection } from './Collection.tsx'
import { FieldShell } from './FieldShell.tsx'
import { SecretInput } from './SecretInput.tsx'
import { TextInput } from './TextInput.tsx'
import { m } from '../i18n.ts'
import { UnionField } from './UnionField.tsx'
import { BitsetInput, JsonInput, ReadonlyValue } from './CodeValue.tsx'

/** Renders any field by its kind. `label` overrides the key as the visible name (list items). */
export function FieldView({ field, api, label, inList }: { field: Field; api: SectionApi; label?: string; inList?: boolean }) {
  const props = { field, api, id: fieldId(api.ns, field.path), label: label ?? field.label, inList: inList ?? false }
  switch (field.kind) {
    case 'string':
    case 'textarea':
    case 'link':
    case 'number':
    case 'slider':
      return <TextInput {...props} />
    case 'boolean':
    case 'select':
    case 'const':
      return <ChoiceInput {...props} />
    case 'secret':
      return <SecretInput {...props} />
    case 'object':
    case 'dict':
    case 'array':
    case 'tuple':
      return <Collection {...props} />
    case 'union':
      return <UnionField {...props} />
    case 'bitset':
      return <BitsetInput {...props} />
    case 'json':
      return <JsonInput {...props} />
    case 'readonly':
      return <ReadonlyValue {...props} />
    default:
      return (
        <FieldShell {...props}>
          <output id={props.id}>
            {field.value === undefined ? m.notSet : showValue(field.value)} <span class="field-hint">({m.noEditor(field.reason ?? '')})</span>
          </output>
        </FieldShell>
      )
  }
}
