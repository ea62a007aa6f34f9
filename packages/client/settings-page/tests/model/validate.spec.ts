import { afterEach, describe, expect, it } from 'vitest'
import Schema from 'schemastery'
import { fieldAt, validateField, type FormModel } from '../../src/model/index.ts'
import { deploy, type Deployment } from './harness.ts'

let current: Deployment | undefined
afterEach(async () => {
  await current?.dispose()
  current = undefined
})

const schema = () => Schema.object({
  name: Schema.string().min(2).max(5).pattern(/^[a-z]+$/),
  home: Schema.string().role('link').required(),
  count: Schema.natural().max(10).default(1),
  ratio: Schema.percent(),
  on: Schema.boolean(),
  fixed: Schema.const('v1'),
  engine: Schema.union(['google', 'bing']),
  tags: Schema.array(Schema.string().max(3)),
  pair: Schema.tuple([Schema.string(), Schema.number()]),
  labels: Schema.dict(Schema.number(), Schema.string().pattern(/^[a-z]+$/)),
  token: Schema.string().role('secret').min(8),
})

async function model(): Promise<FormModel> {
  current = await deploy(schema(), { document: { demo: { home: 'https://x' } } })
  return current.form()
}

async function check(path: string[], value: unknown) {
  const form = await model()
  return validateField(form, fieldAt(form, path)!, value)
}

describe('validateField', () => {
  it('accepts values the envelope allows', async () => {
    expect(await check(['name'], 'abc')).toEqual([])
    expect(await check(['count'], 10)).toEqual([])
    expect(await check(['ratio'], 0.25)).toMatchObject([])
    expect(await check(['engine'], 'bing')).toMatchObject([])
    expect(await check(['pair'], ['a', 1])).toMatchObject([])
    expect(await check(['labels'], { ab: 1 })).toMatchObject([])
    expect(await check(['count'], undefined)).toMatchObject([])
  })

  it('states required, type, length and pattern expectations', async () => {
    expect(await check(['home'], undefined)).toMatchObject([{ path: ['home'], message: 'a value is required' }])
    expect(await check(['name'], 42)).toMatchObject([{ path: ['name'], message: 'expected text' }])
    expect(await check(['name'], 'a')).toMatchObject([{ path: ['name'], message: 'expected at least 2 characters' }])
    expect((await check(['name'], 'ABCDEFG')).map((i) => i.message)).toMatchObject(['expected at most 5 characters', 'expected text matching /^[a-z]+$/'])
    expect(await check(['on'], 'yes')).toMatchObject([{ path: ['on'], message: 'expected true or false' }])
  })

  it('states min, max and step for numbers', async () => {
    expect(await check(['count'], -1)).toMatchObject([{ path: ['count'], message: 'expected a number of at least 0' }])
    expect(await check(['count'], 11)).toMatchObject([{ path: ['count'], message: 'expected a number of at most 10' }])
    expect(await check(['count'], 1.5)).toMatchObject([{ path: ['count'], message: 'expected a multiple of 1' }])
    expect(await check(['ratio'], 0.3)).toMatchObject([])
    expect(await check(['ratio'], 0.305)).toMatchObject([{ path: ['ratio'], message: 'expected a multiple of 0.01' }])
    expect(await check(['count'], Number.NaN)).toMatchObject([{ path: ['count'], message: 'expected a finite number' }])
  })

  it('states const and enum expectations', async () => {
    expect(await check(['fixed'], 'v2')).toMatchObject([{ path: ['fixed'], message: 'expected "v1"' }])
    expect(await check(['engine'], 'yahoo')).toMatchObject([{ path: ['engine'], message: 'expected one of "google", "bing"' }])
  })

  it('checks inside containers with the element path, and dict keys', async () => {
    expect(await check(['tags'], ['ok', 'toolong'])).toMatchObject([{ path: ['tags', '1'], message: 'expected at most 3 characters' }])
    expect(await check(['pair'], ['a', 'b'])).toMatchObject([{ path: ['pair', '1'], message: 'expected a number' }])
    expect(await check(['pair'], ['a', 1, 2])).toMatchObject([{ path: ['pair'], message: 'expected at most 2 items' }])
    expect(await check(['labels'], { AB: 'x' })).toMatchObject([
      { path: ['labels', 'AB'], message: 'key: expected text matching /^[a-z]+$/' },
      { path: ['labels', 'AB'], message: 'expected a number' },
    ])
  })

  it('never repeats the candidate value in a message, secrets included', async () => {
    const issues = [...(await check(['token'], 'sk-x')), ...(await check(['name'], 'LEAKYVALUE')), ...(await check(['engine'], 'LEAKYVALUE'))]
    expect(issues.length).toBeGreaterThan(0)
    expect(JSON.stringify(issues)).not.toMatch(/sk-x|LEAKYVALUE/)
  })
})
