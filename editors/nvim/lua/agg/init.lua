-- agg for Neovim: every task of the repository from agg's table (`agg list --json`), picked with
-- vim.ui.select, run with `agg run NAME` in a terminal split, or listed in the quickfix list at
-- its definition. A thin client: agg finds, names and runs the tasks; nothing is parsed here.
-- Works on Neovim 0.7 and later.

local M = {}

-- The install command shown when agg is missing (see agg's README).
M.install_command = 'cargo install --path .'

M.config = {
  -- The agg executable: a name looked up on PATH or a path.
  cmd = 'agg',
  -- Extra `agg list` filters, e.g. { '--runner', 'make,just', '--dir', 'apps' }.
  list_args = {},
  -- How the terminal window is opened.
  split = 'botright 15split',
}

local notified_missing = false

local function notify(message, level)
  vim.notify(message, level or vim.log.levels.ERROR, { title = 'agg' })
end

--- Sets options (any of `cmd`, `list_args`, `split`).
function M.setup(opts)
  M.config = vim.tbl_extend('force', M.config, opts or {})
  notified_missing = false
end

--- Runs argv without a shell and returns stdout, stderr (agg's diagnostics) and the exit code.
function M.system(argv)
  local out, err, code = {}, {}, nil
  local ok, job = pcall(vim.fn.jobstart, argv, {
    stdout_buffered = true,
    stderr_buffered = true,
    on_stdout = function(_, data)
      out = data
    end,
    on_stderr = function(_, data)
      err = data
    end,
    on_exit = function(_, status)
      code = status
    end,
  })
  if not ok or job <= 0 then
    return '', 'cannot start ' .. argv[1], -1
  end
  vim.fn.jobwait({ job })
  -- The exit and the buffered output are delivered as events; wait until both have arrived.
  vim.wait(10000, function()
    return code ~= nil
  end, 5)
  return table.concat(out, '\n'), vim.trim(table.concat(err, '\n')), code
end

-- agg's directory for a path: the current working directory, where `agg run` also looks.
local function root()
  return vim.fn.getcwd()
end

--- Whether agg can be started; says so once (with the install command) when it cannot.
function M.available()
  if vim.fn.executable(M.config.cmd) == 1 then
    return true
  end
  if not notified_missing then
    notified_missing = true
    notify(
      ('agg was not found (cmd = %q). Install it from a clone of the agg repository with `%s` '
        .. '(see its README), or call require("agg").setup({ cmd = "/path/to/agg" }).')
        :format(M.config.cmd, M.install_command)
    )
  end
  return false
end

--- The table of the current directory, as `agg list --json` prints it, or nil.
function M.table()
  if not M.available() then
    return nil
  end
  local argv = { M.config.cmd, 'list', '--json' }
  vim.list_extend(argv, M.config.list_args)
  table.insert(argv, root())
  local out, err, code = M.system(argv)
  if code ~= 0 then
    notify('agg list failed: ' .. (err ~= '' and err or ('exit ' .. tostring(code))))
    return nil
  end
  local decoded, result = pcall(vim.json.decode, out)
  if not decoded or type(result) ~= 'table' or type(result.tasks) ~= 'table' then
    notify('agg list --json printed no table: is agg too old?')
    return nil
  end
  return result
end

--- Every task of the table (a list of rows with unique_name, runner, description, …).
function M.tasks()
  local t = M.table()
  return t and t.tasks or {}
end

-- Pads text with spaces to `width` display cells (names and ✗ are not one byte per cell).
local function pad(text, width)
  return text .. (' '):rep(width - vim.fn.strdisplaywidth(text))
end

--- How a task is shown in the picker: name, runner (✗ when not installed, or when agg cannot
--- run the task), description (or command; or why agg cannot run it). `width` pads the name, so that a list of them lines up in columns.
function M.format_item(task, width)
  local text = task.description
  if type(task.not_runnable) == 'string' then
    text = 'not runnable here: ' .. task.not_runnable
  elseif type(text) ~= 'string' or text == '' then
    text = '$ ' .. task.command
  end
  local missing = not task.runner_available or type(task.not_runnable) == 'string'
  local runner = task.runner .. (missing and ' ✗' or '')
  return ('%s  %s %s'):format(pad(task.unique_name, width or 0), pad(runner, 7), text)
end

--- The quickfix entries of a finished run's results (the lines `agg run --json=FILE`
--- wrote): each failed test at its file and line, then each problem, errors first.
function M.result_items(lines, base)
  local items = {}
  local function path(file)
    if type(file) ~= 'string' then
      return nil
    end
    return file:sub(1, 1) == '/' and file or (base .. '/' .. file)
  end
  for _, line in ipairs(lines) do
    local ok, run = pcall(vim.fn.json_decode, line)
    if ok and type(run) == 'table' then
      local tests = type(run.tests) == 'table' and run.tests or {}
      for _, f in ipairs(tests.failures or {}) do
        local message = type(f.message) == 'string' and f.message:match('[^\n]*') or ''
        table.insert(items, {
          filename = path(f.file),
          lnum = type(f.line) == 'number' and f.line or 1,
          text = f.name .. (message ~= '' and (': ' .. message) or ''),
          type = 'E',
        })
      end
      for _, p in ipairs(run.problems or {}) do
        local code = type(p.code) == 'string' and (p.code .. ': ') or ''
        table.insert(items, {
          filename = path(p.file),
          lnum = type(p.line) == 'number' and p.line or 1,
          col = type(p.column) == 'number' and p.column or 0,
          text = code .. (p.message:match('[^\n]*') or ''),
          type = p.severity == 'error' and 'E' or 'W',
        })
      end
    end
  end
  return items
end

-- When a run ends: its failures and problems into the quickfix list, from the file agg
-- wrote them to.
local function collect(results, name)
  local ok, lines = pcall(vim.fn.readfile, results)
  os.remove(results)
  if not ok then
    return
  end
  local items = M.result_items(lines, root())
  if #items == 0 then
    return
  end
  vim.fn.setqflist({}, ' ', { title = 'agg: ' .. name, items = items })
  notify(('%d failures and problems of %s in the quickfix list (:copen)'):format(#items, name), vim.log.levels.WARN)
end

-- Opens the terminal split and runs `cmd` (an argv list, or a shell command line) there;
-- `results` is the file its `--json=FILE` names.
local function terminal(cmd, title, results)
  vim.cmd(M.config.split)
  vim.cmd('enew')
  vim.cmd('setlocal nonumber norelativenumber signcolumn=no')
  local buf = vim.api.nvim_get_current_buf()
  local job
  local opts = {
    cwd = root(),
    on_exit = function()
      if results then
        vim.schedule(function()
          collect(results, title)
        end)
      end
    end,
  }
  if vim.fn.has('nvim-0.11') == 1 then
    opts.term = true
    job = vim.fn.jobstart(cmd, opts) -- termopen() is deprecated from 0.11
  else
    job = vim.fn.termopen(cmd, opts)
  end
  pcall(vim.api.nvim_buf_set_name, buf, ('agg://%s#%d'):format(title, buf))
  vim.b[buf].agg_job = job
  return buf, job
end

--- Runs a task in a terminal split. `args` is a list of arguments (argv, no shell), or a
--- string as typed after the name, which the shell splits.
function M.run(name, args)
  if not M.available() then
    return nil
  end
  local cmd
  -- agg writes the run's tests and problems there for the quickfix list.
  local results = vim.fn.tempname()
  local json = '--json=' .. results
  if type(args) == 'string' and args:match('%S') then
    -- After `--`, every word is an argument, even a task's name or one starting with `-`.
    cmd = table.concat({ vim.fn.shellescape(M.config.cmd), 'run', vim.fn.shellescape(json), vim.fn.shellescape(name), '--', args }, ' ')
  else
    cmd = { M.config.cmd, 'run', json, name }
    if type(args) == 'table' and #args > 0 then
      table.insert(cmd, '--')
      vim.list_extend(cmd, args)
    end
  end
  return terminal(cmd, name, results)
end

-- A task with parameters asks for its arguments first.
local function run_task(task)
  if #(task.params or {}) == 0 then
    return M.run(task.unique_name)
  end
  local hint = {}
  for _, p in ipairs(task.params) do
    local default = type(p.default) == 'string' and ('=' .. p.default) or ''
    table.insert(hint, (p.required and '%s%s' or '[%s%s]'):format(p.name, default))
  end
  vim.ui.input({ prompt = ('agg run %s (%s): '):format(task.unique_name, table.concat(hint, ' ')) }, function(input)
    if input ~= nil then
      M.run(task.unique_name, input)
    end
  end)
end

--- `:Agg`: picks a task with vim.ui.select and runs it.
function M.pick()
  local t = M.table()
  if not t then
    return
  end
  local tasks = t.tasks
  if #tasks == 0 then
    notify('agg found no tasks in ' .. t.root, vim.log.levels.WARN)
    return
  end
  local width = 0
  for _, task in ipairs(tasks) do
    width = math.max(width, vim.fn.strdisplaywidth(task.unique_name))
  end
  local function format_item(task)
    return M.format_item(task, math.min(width, 40))
  end
  vim.ui.select(tasks, { prompt = 'agg task', format_item = format_item, kind = 'agg' }, function(task)
    if task then
      run_task(task)
    end
  end)
end

--- The quickfix entries: one per task, at its definition.
function M.qf_items(tasks)
  local base = root()
  local items = {}
  for _, task in ipairs(tasks) do
    local text = task.description
    if type(text) ~= 'string' or text == '' then
      text = '$ ' .. task.command
    end
    table.insert(items, {
      filename = base .. '/' .. task.file_path,
      lnum = type(task.line) == 'number' and task.line or 1,
      text = task.unique_name .. ' — ' .. text,
    })
  end
  return items
end

--- `:AggList`: every task in the quickfix list (`file:line: name — description`).
function M.quickfix()
  local t = M.table()
  if not t then
    return
  end
  vim.fn.setqflist({}, ' ', { title = 'agg tasks', items = M.qf_items(t.tasks) })
  vim.cmd('copen')
end

--- Completion of `:Agg NAME`: the unique names (only the first argument is a name).
function M.complete(arglead, cmdline, _)
  local before = cmdline:match('^%s*%S+%s+(.*)$') or ''
  if before:find('%s') then
    return {}
  end
  local names = {}
  for _, task in ipairs(M.tasks()) do
    if vim.startswith(task.unique_name, arglead) then
      table.insert(names, task.unique_name)
    end
  end
  return names
end

--- `:Agg [NAME [ARGS]]`.
function M.command(opts)
  local name, rest = opts.args:match('^%s*(%S+)%s*(.-)%s*$')
  if not name then
    return M.pick()
  end
  return M.run(name, rest)
end

return M
