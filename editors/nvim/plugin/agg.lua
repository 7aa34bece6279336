-- :Agg [NAME [ARGS]] and :AggList (see lua/agg/init.lua).
if vim.g.loaded_agg then
  return
end
vim.g.loaded_agg = true

vim.api.nvim_create_user_command('Agg', function(opts)
  require('agg').command(opts)
end, {
  nargs = '*',
  complete = function(arglead, cmdline, pos)
    return require('agg').complete(arglead, cmdline, pos)
  end,
  desc = 'Pick a task of the repository, or run NAME with ARGS, in a terminal split',
})

vim.api.nvim_create_user_command('AggList', function()
  require('agg').quickfix()
end, { nargs = 0, desc = "Every task of the repository in the quickfix list, at its definition" })
