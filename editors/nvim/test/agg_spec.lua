-- The plugin against the real agg on a copy of editors/fixture, in `nvim --headless`.
-- Run by editors/nvim/test/run.sh, which sets AGG_BIN, AGG_FIXTURE (the copy, also the cwd) and
-- AGG_EXPECTED (a file holding `agg list --json` of the copy, printed by agg itself).

local agg = require('agg')
local bin = assert(os.getenv('AGG_BIN'), 'AGG_BIN is not set')
local fixture = assert(os.getenv('AGG_FIXTURE'), 'AGG_FIXTURE is not set')
local expected = vim.json.decode(table.concat(vim.fn.readfile(assert(os.getenv('AGG_EXPECTED'))), '\n'))
agg.setup({ cmd = bin })

local passed, failed = 0, 0
local function say(line)
  io.stdout:write(line, '\n')
end

local function test(name, fn)
  local ok, err = xpcall(fn, debug.traceback)
  if ok then
    passed = passed + 1
    say('ok - ' .. name)
  else
    failed = failed + 1
    say('not ok - ' .. name)
    say('  ' .. tostring(err):gsub('\n', '\n  '))
  end
  -- Every test starts from one window, in the fixture, with the real vim.ui and vim.notify.
  vim.cmd('silent! only!')
  vim.cmd('silent! cclose')
end

local function eq(actual, wanted, what)
  if not vim.deep_equal(actual, wanted) then
    error(('%s:\n  got      %s\n  expected %s'):format(what or 'mismatch', vim.inspect(actual), vim.inspect(wanted)), 2)
  end
end

local function read(path)
  return table.concat(vim.fn.readfile(path), '\n')
end

local function names(tasks)
  return vim.tbl_map(function(t)
    return t.unique_name
  end, tasks)
end

-- Waits for the terminal job of the current buffer and returns its exit code.
local function wait_terminal()
  local job = vim.b.agg_job
  assert(job and job > 0, 'no terminal job in the current buffer')
  assert(vim.bo.buftype == 'terminal', 'the current buffer is not a terminal')
  return vim.fn.jobwait({ job }, 30000)[1]
end

-- Stubs a function of a table for the length of fn.
local function with(tbl, key, stub, fn)
  local original = tbl[key]
  tbl[key] = stub
  local ok, err = pcall(fn)
  tbl[key] = original
  if not ok then
    error(err, 0)
  end
end

test('the fixture is the one the tests expect', function()
  eq(names(expected.tasks), { 'build', 'test-m', 'clean', 'test-n', 'lint', 'greet', 'tools/gen' }, 'agg list --json')
end)

test(':Agg offers exactly the tasks of agg list --json, in its order', function()
  local seen
  with(vim.ui, 'select', function(items, opts)
    seen = { items = items, opts = opts }
  end, function()
    vim.cmd('Agg')
  end)
  assert(seen, 'vim.ui.select was not called')
  eq(seen.items, expected.tasks, 'picker items')
  eq(seen.opts.prompt, 'agg task')
end)

test('each picker item shows name, runner and description (or command), in columns', function()
  local seen
  with(vim.ui, 'select', function(items, opts)
    seen = vim.tbl_map(opts.format_item, items)
  end, function()
    vim.cmd('Agg')
  end)
  eq(seen, {
    'build      make    Compile the demo',
    "test-m     make    Run the demo's tests",
    'clean      make    Remove the markers',
    'test-n     npm     $ npm run test',
    'lint       npm     Check the style',
    'greet      xc      Say hello to someone and leave a marker.',
    "tools/gen  make    Generate the tools' code",
  }, 'picker lines')
  eq(agg.format_item({ unique_name = 'x', runner = 'just', runner_available = false, command = 'just x', description = vim.NIL }), 'x  just ✗  $ just x')
  eq(
    agg.format_item({ unique_name = 'tsc', runner = 'vscode', runner_available = true, command = '', description = vim.NIL, not_runnable = 'needs VS Code' }),
    'tsc  vscode ✗ not runnable here: needs VS Code'
  )
end)

test('choosing a task runs it with agg run in a terminal split', function()
  vim.fn.delete(fixture .. '/marker-build.txt')
  local windows = #vim.api.nvim_list_wins()
  with(vim.ui, 'select', function(items, _, on_choice)
    for _, item in ipairs(items) do
      if item.unique_name == 'build' then
        on_choice(item)
      end
    end
  end, function()
    vim.cmd('Agg')
  end)
  eq(#vim.api.nvim_list_wins(), windows + 1, 'windows after choosing')
  eq(wait_terminal(), 0, 'exit code')
  eq(read(fixture .. '/marker-build.txt'), 'built', 'marker-build.txt')
end)

test('a task in a subdirectory runs there', function()
  vim.cmd('Agg tools/gen')
  eq(wait_terminal(), 0, 'exit code')
  eq(read(fixture .. '/tools/marker-gen.txt'), 'generated', 'tools/marker-gen.txt')
end)

test(':Agg NAME ARGS passes the arguments', function()
  vim.cmd('Agg greet "Ada Lovelace"')
  eq(wait_terminal(), 0, 'exit code')
  eq(read(fixture .. '/marker-greet.txt'), 'hello Ada Lovelace', 'marker-greet.txt')
end)

test('choosing a task with parameters asks for its arguments first', function()
  local prompt
  with(vim.ui, 'input', function(opts, on_confirm)
    prompt = opts.prompt
    on_confirm('Grace')
  end, function()
    with(vim.ui, 'select', function(items, _, on_choice)
      on_choice(items[6])
    end, function()
      vim.cmd('Agg')
    end)
  end)
  eq(prompt, 'agg run greet (NAME): ', 'prompt')
  eq(wait_terminal(), 0, 'exit code')
  eq(read(fixture .. '/marker-greet.txt'), 'hello Grace', 'marker-greet.txt')
end)

test('an npm script runs through agg too', function()
  vim.cmd('Agg test-n')
  eq(wait_terminal(), 0, 'exit code')
  eq(read(fixture .. '/marker-test-n.txt'), 'npm test', 'marker-test-n.txt')
end)

test(':Agg completes task names', function()
  eq(vim.fn.getcompletion('Agg t', 'cmdline'), { 'test-m', 'test-n', 'tools/gen' }, 'completion of "t"')
  eq(#vim.fn.getcompletion('Agg ', 'cmdline'), #expected.tasks, 'completion of ""')
  eq(vim.fn.getcompletion('Agg build ', 'cmdline'), {}, 'no names after the name')
end)

test(':AggList fills the quickfix list: one entry per task, at its file and line', function()
  vim.cmd('AggList')
  local qf = vim.fn.getqflist()
  eq(#qf, #expected.tasks, 'entries')
  for i, task in ipairs(expected.tasks) do
    local entry = qf[i]
    eq(vim.fn.fnamemodify(vim.fn.bufname(entry.bufnr), ':p'), vim.fn.fnamemodify(fixture .. '/' .. task.file_path, ':p'), task.unique_name .. ' file')
    eq(entry.lnum, task.line, task.unique_name .. ' line')
    local description = task.description ~= vim.NIL and task.description or ('$ ' .. task.command)
    eq(entry.text, task.unique_name .. ' — ' .. description, task.unique_name .. ' text')
  end
  eq(vim.fn.getqflist({ title = 1 }).title, 'agg tasks')
  eq(vim.bo.buftype, 'quickfix', 'the quickfix window is open')
end)

test(':cfirst and :cnext jump to the definitions', function()
  vim.cmd('AggList')
  vim.cmd('cfirst')
  eq(vim.fn.expand('%:t'), 'Makefile')
  eq(vim.fn.getline('.'), 'build: ## Compile the demo')
  vim.cmd('cnext')
  eq(vim.fn.getline('.'), "test: build ## Run the demo's tests")
end)

test('list_args narrows the list; an empty list says so instead of opening the picker', function()
  local seen, notes = nil, {}
  with(vim, 'notify', function(message, level)
    table.insert(notes, { message = message, level = level })
  end, function()
    with(vim.ui, 'select', function(items)
      seen = items
    end, function()
      agg.setup({ cmd = bin, list_args = { '--runner', 'npm' } })
      vim.cmd('Agg')
      eq(names(seen), { 'test-n', 'lint' }, 'npm tasks')
      seen = nil
      agg.setup({ cmd = bin, list_args = { '--query', 'no such task anywhere' } })
      vim.cmd('Agg')
    end)
  end)
  agg.setup({ cmd = bin, list_args = {} })
  eq(seen, nil, 'no picker for an empty list')
  eq(#notes, 1, 'notifications')
  eq(notes[1].level, vim.log.levels.WARN)
  assert(notes[1].message:find('no tasks', 1, true), notes[1].message)
end)

test('a missing agg is one notification with the install command', function()
  local notes = {}
  with(vim, 'notify', function(message, level)
    table.insert(notes, { message = message, level = level })
  end, function()
    agg.setup({ cmd = fixture .. '/no-such-agg' })
    vim.cmd('Agg')
    vim.cmd('AggList')
    vim.cmd('Agg build')
  end)
  agg.setup({ cmd = bin })
  eq(#notes, 1, 'notifications')
  assert(notes[1].message:find('cargo install --path .', 1, true), notes[1].message)
  eq(notes[1].level, vim.log.levels.ERROR)
end)

test('a run\'s compiler errors go into the quickfix list, at their file, line and column', function()
  -- Last: the task it adds changes the table the tests above compare with.
  vim.fn.mkdir(fixture .. '/native', 'p')
  vim.fn.writefile({ 'int main(void) {', '    int x = "a";', '    return y;', '}' }, fixture .. '/native/main.c')
  vim.fn.writefile({ 'compile:', '\tgcc -Wall -c main.c -o /dev/null' }, fixture .. '/native/Makefile')
  vim.fn.setqflist({}, ' ', { title = 'before', items = {} })
  local notes = {}
  with(vim, 'notify', function(message, level)
    table.insert(notes, { message = message, level = level })
  end, function()
    vim.cmd('Agg native/compile')
    eq(wait_terminal(), 2, 'exit code')
    vim.wait(5000, function()
      return vim.fn.getqflist({ title = 1 }).title ~= 'before'
    end)
  end)
  eq(vim.fn.getqflist({ title = 1 }).title, 'agg: native/compile')
  local qf = vim.fn.getqflist()
  eq(#qf, 3, 'entries: the error, the conversion and the unused variable')
  eq(vim.fn.fnamemodify(vim.fn.bufname(qf[1].bufnr), ':p'), vim.fn.fnamemodify(fixture .. '/native/main.c', ':p'), 'file')
  eq({ qf[1].lnum, qf[1].col, qf[1].type }, { 3, 12, 'E' }, 'the error first')
  eq({ qf[2].lnum, qf[2].type, qf[3].type }, { 2, 'W', 'W' }, 'then the warnings')
  assert(qf[1].text:find('y', 1, true), qf[1].text)
  eq(#notes, 1, 'one notification')
end)

say(('%d passed, %d failed'):format(passed, failed))
vim.cmd(failed == 0 and 'qall!' or 'cquit! 1')
