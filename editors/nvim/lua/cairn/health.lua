-- `:checkhealth cairn`: what a user needs to see when diagnostics do not show up.
local M = {}

function M.check()
  local health = vim.health
  local cairn = require("cairn")

  health.start("Neovim")
  local v = vim.version()
  local version = ("%d.%d.%d"):format(v.major, v.minor, v.patch)
  if vim.fn.has("nvim-0.11") == 1 then
    health.ok("Neovim " .. version .. " (vim.lsp.config / vim.lsp.enable)")
  elseif vim.fn.has("nvim-0.10") == 1 then
    health.ok("Neovim " .. version .. " (vim.lsp.start)")
  else
    health.error("Neovim " .. version .. " is too old", { "Cairn needs Neovim 0.10 or newer" })
  end

  health.start("Setup")
  if cairn._setup_done then
    health.ok(("require('cairn').setup() was called; the server starts via %s"):format(cairn._mode))
  else
    health.warn("require('cairn').setup() has not been called", {
      "Add `require('cairn').setup()` to your init.lua (lazy.nvim: `opts = {}`)",
    })
  end

  health.start("Server")
  local cmd = cairn.config.cmd
  local exe = cmd[1]
  if vim.fn.executable(exe) == 1 then
    local path = vim.fn.exepath(exe)
    local out = vim.fn.system({ exe, "--version" })
    if vim.v.shell_error == 0 then
      health.ok(("%s: %s"):format(path, vim.trim(out)))
    else
      health.error(("%s --version failed: %s"):format(path, vim.trim(out)))
    end
  else
    health.error(("`%s` is not executable"):format(exe), {
      'Install it: `pip install "git+$CAIRN_GIT"` or, from a clone, `make venv` (see the README\'s Install section)',
      "Or point setup() at it: `require('cairn').setup({ cmd = { '/path/to/cairn', 'serve' } })`",
    })
  end

  health.start("Project")
  local root = cairn.find_root(0) or vim.fs.root(vim.fn.getcwd(), ".cairn")
  if root then
    health.ok("Cairn project: " .. root)
  elseif cairn.config.require_project then
    health.warn("No .cairn/ folder above the current buffer or directory", {
      "Run `cairn init` at the repository root; the server only starts inside a project",
    })
  else
    health.info("No .cairn/ folder found; the server uses the git root")
  end

  local clients = vim.lsp.get_clients({ name = "cairn" })
  if #clients > 0 then
    for _, client in ipairs(clients) do
      health.ok(("Client %d running for %s"):format(client.id, client.root_dir or "?"))
    end
  else
    health.info("No Cairn client is running (open a file of a supported type inside a project)")
  end
end

return M
