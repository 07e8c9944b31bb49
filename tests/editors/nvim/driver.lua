-- Headless Neovim test driver (used with `nvim --headless -u driver.lua`).
-- Runs the scenario named by CAIRN_NVIM_SCENARIO, writes what it observed as JSON to
-- CAIRN_NVIM_OUT, and exits 0; any error is written there too and exits non-zero, so a
-- failure can never leave Neovim waiting for input.
-- An error at this level would leave Neovim running with no scenario: exit instead.
local started, start_err = pcall(function()
  vim.cmd("filetype on")
  vim.opt.swapfile = false
  vim.opt.shadafile = "NONE"
  -- Unset when the scenario tests an installed copy (a package under stdpath("data")/site).
  local plugin = vim.env.CAIRN_NVIM_PLUGIN
  if plugin and plugin ~= "" then
    vim.opt.rtp:prepend(plugin)
  end
end)
if not started then
  io.stderr:write("driver setup failed: " .. tostring(start_err) .. "\n")
  vim.cmd("cquit 2")
end

local out_path = vim.env.CAIRN_NVIM_OUT or (vim.fn.getcwd() .. "/.nvim-result.json")
local timeout = tonumber(vim.env.CAIRN_NVIM_TIMEOUT_MS or "20000")
local obs = { steps = {} }

local function step(name)
  table.insert(obs.steps, name)
end

local function write_out()
  local f = assert(io.open(out_path, "w"))
  f:write(vim.json.encode(obs))
  f:close()
end

local function wait_for(what, predicate)
  local ok = vim.wait(timeout, predicate, 50)
  if not ok then
    error("timed out waiting for " .. what, 2)
  end
end

local function diag_list(bufnr)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local lsp = d.user_data and d.user_data.lsp or {}
    table.insert(out, {
      lnum = d.lnum,
      col = d.col,
      end_lnum = d.end_lnum,
      end_col = d.end_col,
      severity = d.severity,
      message = d.message,
      source = d.source,
      code = d.code,
      data = lsp.data,
    })
  end
  return out
end

local function cairn_warnings(bufnr)
  return vim.diagnostic.get(bufnr, { severity = vim.diagnostic.severity.WARN })
end

-- Scripted prompts: answers are taken in order; every prompt shown is recorded.
local function script_prompts(inputs, choices)
  obs.prompts = {}
  vim.ui.input = function(opts, on_confirm)
    table.insert(obs.prompts, { kind = "input", prompt = opts.prompt })
    on_confirm(table.remove(inputs, 1))
  end
  vim.ui.select = function(items, opts, on_choice)
    table.insert(obs.prompts, { kind = "select", prompt = opts.prompt, items = items })
    local want = table.remove(choices, 1)
    for i, item in ipairs(items) do
      if item == want then
        return on_choice(item, i)
      end
    end
    on_choice(nil, nil)
  end
end

local function buffer_text(bufnr)
  return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n")
end

local function setup_plugin()
  local cairn = require("cairn")
  -- CAIRN_NVIM_QUIET: "true"/"false" set the plugin's `quiet` option; unset leaves it nil.
  local quiet = ({ ["true"] = true, ["false"] = false })[vim.env.CAIRN_NVIM_QUIET or ""]
  cairn.setup({
    cmd = vim.json.decode(vim.env.CAIRN_NVIM_CMD),
    legacy_start = vim.env.CAIRN_NVIM_LEGACY == "1",
    quiet = quiet,
  })
  obs.mode = cairn._mode
  return cairn
end

local scenarios = {}

-- Open a migration that re-adds a reverted column; fix it through the quick fix.
function scenarios.e2e()
  setup_plugin()
  vim.cmd.edit(vim.fn.fnameescape(vim.env.CAIRN_NVIM_FILE))
  local bufnr = vim.api.nvim_get_current_buf()
  obs.filetype = vim.bo[bufnr].filetype

  wait_for("the cairn client", function()
    local c = vim.lsp.get_clients({ bufnr = bufnr, name = "cairn" })[1]
    return c ~= nil and c.initialized
  end)
  local client = vim.lsp.get_clients({ bufnr = bufnr, name = "cairn" })[1]
  obs.root_dir = client.root_dir
  step("client")

  wait_for("a cairn warning", function()
    return #cairn_warnings(bufnr) > 0
  end)
  obs.diagnostics = diag_list(bufnr)
  step("diagnostics")

  wait_for("a code lens", function()
    return #vim.lsp.codelens.get(bufnr) > 0
  end)
  obs.lenses = {}
  for _, lens in ipairs(vim.lsp.codelens.get(bufnr)) do
    table.insert(obs.lenses, {
      line = lens.range.start.line,
      title = lens.command and lens.command.title,
      command = lens.command and lens.command.command,
    })
  end
  step("codelens")

  local warn = cairn_warnings(bufnr)[1]
  vim.api.nvim_win_set_cursor(0, { warn.lnum + 1, warn.col })
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
  local resp = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", params, timeout)
  local hover = resp and resp[client.id] and resp[client.id].result
  if hover then
    local contents = hover.contents
    obs.hover = type(contents) == "table" and (contents.value or vim.inspect(contents)) or contents
  end
  step("hover")

  obs.cursor_context = require("cairn").cursor_context(bufnr)
  script_prompts({ "Product asked for verification again; see ticket 42" }, {})
  local applied = {}
  vim.lsp.buf.code_action({
    context = { diagnostics = vim.lsp.diagnostic.from(cairn_warnings(bufnr)), only = { "quickfix" } },
    filter = function(action)
      local ok = action.title:lower():find("supersede", 1, true) ~= nil
      if ok then
        table.insert(applied, action.title)
      end
      return ok
    end,
    apply = true,
  })
  wait_for("the warning to go away", function()
    return #cairn_warnings(bufnr) == 0
  end)
  obs.applied = applied
  obs.fix_prompts = obs.prompts
  obs.after_fix = diag_list(bufnr)
  step("fixed")

  -- A user command: reject an approach for a dependency, prompted for both fields.
  script_prompts({ "stripe-python v1", "Its retries double-charged customers" }, {})
  vim.cmd("CairnReject deps/stripe")
  obs.reject_prompts = obs.prompts
  wait_for("the reject to reach the log", function()
    local f = io.open(vim.env.CAIRN_NVIM_LOG, "r")
    local text = f and f:read("*a") or ""
    if f then
      f:close()
    end
    return text:find("double-charged", 1, true) ~= nil
  end)
  step("reject")

  vim.cmd("CairnHistory users.email_verified")
  wait_for("the history window", function()
    return vim.bo.filetype == "markdown" and buffer_text(0):find("email_verified", 1, true) ~= nil
  end)
  obs.history = buffer_text(0)
  step("history")

  -- The lens runs cairn.history with show=true: the server opens the document itself,
  -- so the plugin must not open a second copy.
  vim.cmd("only")
  vim.api.nvim_set_current_buf(bufnr)
  local lens = vim.lsp.codelens.get(bufnr)[1]
  client:exec_cmd(lens.command, { bufnr = bufnr })
  local function history_buffers()
    local n = 0
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(b) and buffer_text(b):find("History of `users.email_verified`", 1, true) then
        n = n + 1
      end
    end
    return n
  end
  wait_for("the history document", function()
    return history_buffers() > 0
  end)
  vim.wait(500) -- a duplicate would arrive right after the server's answer
  obs.lens_history_buffers = history_buffers()
  step("lens")
end

-- Open a file; record its lenses and the hover at each position of CAIRN_NVIM_HOVERS
-- ([[line, character], ...], 0-based): the quiet option changes what the server sends.
function scenarios.quiet()
  setup_plugin()
  vim.cmd.edit(vim.fn.fnameescape(vim.env.CAIRN_NVIM_FILE))
  local bufnr = vim.api.nvim_get_current_buf()
  wait_for("the cairn client", function()
    local c = vim.lsp.get_clients({ bufnr = bufnr, name = "cairn" })[1]
    return c ~= nil and c.initialized
  end)
  local client = vim.lsp.get_clients({ bufnr = bufnr, name = "cairn" })[1]
  obs.init_options = client.config.init_options or vim.NIL
  step("client")
  -- Every scenario's file has at least one entity that deserves a lens either way.
  wait_for("a code lens", function()
    return #vim.lsp.codelens.get(bufnr) > 0
  end)
  vim.lsp.codelens.refresh({ bufnr = bufnr }) -- the answer after analysis settled
  vim.wait(300)
  wait_for("a code lens", function()
    return #vim.lsp.codelens.get(bufnr) > 0
  end)
  obs.lenses = {}
  for _, lens in ipairs(vim.lsp.codelens.get(bufnr)) do
    table.insert(obs.lenses, {
      line = lens.range.start.line,
      title = lens.command and lens.command.title,
    })
  end
  table.sort(obs.lenses, function(a, b)
    return a.line < b.line
  end)
  step("codelens")
  obs.hovers = {}
  for _, pos in ipairs(vim.json.decode(vim.env.CAIRN_NVIM_HOVERS)) do
    local params = {
      textDocument = vim.lsp.util.make_text_document_params(bufnr),
      position = { line = pos[1], character = pos[2] },
    }
    local resp = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", params, timeout)
    local hover = resp and resp[client.id] and resp[client.id].result
    table.insert(obs.hovers, hover and hover.contents.value or vim.NIL)
  end
  step("hover")
end

-- :checkhealth cairn with the plugin set up but no file open.
function scenarios.health()
  setup_plugin()
  vim.cmd("checkhealth cairn")
  obs.health = buffer_text(0)
  obs.commands = vim.tbl_keys(vim.api.nvim_get_commands({}))
  obs.lsp_commands = vim.tbl_keys(vim.lsp.commands)
end

-- Installed as a start package: found without touching 'runtimepath'.
function scenarios.package()
  local path = vim.api.nvim_get_runtime_file("lua/cairn/init.lua", false)[1]
  obs.module_path = path and vim.uv.fs_realpath(path)
  setup_plugin()
  vim.cmd("checkhealth cairn")
  obs.health = buffer_text(0)
end

-- The same prompts without a server: cancelling must send nothing.
function scenarios.prompts()
  local cairn = setup_plugin()
  local sent = {}
  cairn.execute = function(name, args)
    table.insert(sent, { name = name, args = args })
  end
  script_prompts({ "deps/left-pad", "", "users.email", "Moved to a view" }, { "modify" })
  vim.cmd("CairnReject") -- entity answered, alternative left empty: cancelled
  vim.cmd("CairnLog") -- entity, type chosen, reason
  obs.sent = sent
end

vim.api.nvim_create_autocmd("VimEnter", {
  once = true,
  callback = function()
    vim.schedule(function()
      local name = vim.env.CAIRN_NVIM_SCENARIO
      local ok, err = xpcall(function()
        assert(scenarios[name], "unknown scenario " .. tostring(name))()
      end, debug.traceback)
      obs.ok = ok
      obs.error = (not ok) and tostring(err) or nil
      if not ok then
        pcall(function()
          obs.diagnostics_at_error = diag_list(0)
          obs.messages = vim.api.nvim_exec2("messages", { output = true }).output
        end)
      end
      local wrote = pcall(write_out)
      if ok and wrote then
        vim.cmd("qall!")
      else
        vim.cmd("cquit 1")
      end
    end)
  end,
})
