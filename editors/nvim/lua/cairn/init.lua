-- Cairn for Neovim: registers `cairn serve` as a language server and adds commands
-- that prompt for the reasoning before a decision is written to the log.
local M = {}

M.version = "0.1.0"

--- Event types `cairn.log` accepts, most common first (see DESIGN: the log).
M.log_types = {
  "add",
  "modify",
  "remove",
  "create",
  "rename",
  "retype",
  "migrate",
  "delete",
  "index_add",
  "index_remove",
}

--- File types the indexer understands; a buffer of another type never starts the server.
M.default_filetypes = {
  "sql",
  "python",
  "javascript",
  "javascriptreact",
  "typescript",
  "typescriptreact",
  "go",
  "gomod",
  "rust",
  "java",
  "ruby",
  "toml",
  "json",
  "yaml",
  "requirements",
}

local defaults = {
  cmd = { "cairn", "serve" },
  filetypes = M.default_filetypes,
  -- Only a folder with a `.cairn/` log has decisions to show; elsewhere stay quiet.
  require_project = true,
  -- Neovim 0.11+ uses vim.lsp.config/enable; set true to use vim.lsp.start as on 0.10.
  legacy_start = false,
  -- Show "N decisions" lenses over entities with history (Neovim refreshes none by itself).
  codelens = true,
  -- The quiet rule: lenses and full hover cards only where history deserves attention
  -- (an open verdict, a conflict, a due review, a re-opened verdict, a removal later
  -- re-added, many decisions). false: a lens on every entity with history. Sent to the
  -- server as initializationOptions.quiet; nil leaves the server's default (true).
  quiet = nil,
  settings = {},
  init_options = nil,
  on_attach = nil,
  capabilities = nil,
}

M.config = vim.deepcopy(defaults)
M._setup_done = false
M._mode = nil

local function notify(msg, level)
  vim.notify("cairn: " .. msg, level or vim.log.levels.INFO)
end

local function has_011()
  return vim.fn.has("nvim-0.11") == 1
end

-- 0.11 made client methods take `self`; 0.10 closures do not.
local function client_request(client, method, params, handler, bufnr)
  if has_011() then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

local function client_request_sync(client, method, params, timeout, bufnr)
  if has_011() then
    return client:request_sync(method, params, timeout, bufnr)
  end
  return client.request_sync(method, params, timeout, bufnr)
end

--- The project root for a buffer: the nearest folder holding `.cairn/`, or CAIRN_DIR's parent.
function M.find_root(bufnr)
  local env = vim.env.CAIRN_DIR
  if env and env ~= "" then
    return vim.fs.dirname(vim.fs.normalize(vim.fn.fnamemodify(env, ":p"):gsub("/$", "")))
  end
  local root = vim.fs.root(bufnr, ".cairn")
  if root or M.config.require_project then
    return root
  end
  return vim.fs.root(bufnr, ".git") or vim.fn.getcwd()
end

-- The log changed underneath (a decision logged, `git pull`): pull every attached
-- buffer's diagnostics again. Neovim 0.11 pulls diagnostics but has no handler for
-- this request, so without it warnings would go stale until the next edit.
local function on_diagnostic_refresh(_, _, ctx)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  if not client then
    return vim.NIL
  end
  for bufnr in pairs(client.attached_buffers) do
    if vim.api.nvim_buf_is_loaded(bufnr) then
      local params = { textDocument = vim.lsp.util.make_text_document_params(bufnr) }
      client_request(client, "textDocument/diagnostic", params, vim.lsp.diagnostic.on_diagnostic, bufnr)
      if M.config.codelens then
        vim.lsp.codelens.refresh({ bufnr = bufnr })
      end
    end
  end
  return vim.NIL
end

-- Code lenses are requested only when asked for: on attach, entering and saving a buffer.
local function enable_codelens(group)
  vim.api.nvim_create_autocmd("LspAttach", {
    group = group,
    callback = function(args)
      local client = vim.lsp.get_client_by_id(args.data.client_id)
      if not (M.config.codelens and client and client.name == "cairn") then
        return
      end
      vim.lsp.codelens.refresh({ bufnr = args.buf })
      vim.api.nvim_create_autocmd({ "BufEnter", "InsertLeave", "BufWritePost" }, {
        group = group,
        buffer = args.buf,
        callback = function()
          vim.lsp.codelens.refresh({ bufnr = args.buf })
        end,
      })
    end,
  })
end

--- What the server gets as initializationOptions: the user's, plus the plugin's `quiet`.
function M.init_options()
  local cfg = M.config
  if cfg.quiet == nil then
    return cfg.init_options
  end
  return vim.tbl_extend("force", cfg.init_options or {}, { quiet = cfg.quiet })
end

local function client_config()
  local cfg = M.config
  local capabilities = vim.tbl_deep_extend(
    "force",
    vim.lsp.protocol.make_client_capabilities(),
    cfg.capabilities or {},
    { workspace = { diagnostics = { refreshSupport = true } } }
  )
  return {
    name = "cairn",
    cmd = cfg.cmd,
    filetypes = cfg.filetypes,
    settings = cfg.settings,
    init_options = M.init_options(),
    on_attach = cfg.on_attach,
    capabilities = capabilities,
    handlers = { ["workspace/diagnostic/refresh"] = on_diagnostic_refresh },
  }
end

local function start_legacy(bufnr)
  if not vim.tbl_contains(M.config.filetypes, vim.bo[bufnr].filetype) then
    return
  end
  if vim.bo[bufnr].buftype ~= "" then
    return
  end
  local root = M.find_root(bufnr)
  if not root then
    return
  end
  local cfg = client_config()
  cfg.root_dir = root
  cfg.workspace_folders = { { uri = vim.uri_from_fname(root), name = vim.fs.basename(root) } }
  vim.lsp.start(cfg, { bufnr = bufnr })
end

local function register_server()
  if has_011() and not M.config.legacy_start then
    local cfg = client_config()
    cfg.root_dir = function(bufnr, on_dir)
      local root = M.find_root(bufnr)
      if root then
        on_dir(root)
      end
    end
    vim.lsp.config("cairn", cfg)
    vim.lsp.enable("cairn")
    M._mode = "vim.lsp.enable"
    return
  end
  local group = vim.api.nvim_create_augroup("cairn_lsp_start", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = M.config.filetypes,
    callback = function(args)
      start_legacy(args.buf)
    end,
  })
  -- Buffers opened before setup() ran (lazy loading) get their client too.
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) then
      start_legacy(bufnr)
    end
  end
  M._mode = "vim.lsp.start"
end

--- The running Cairn client for a buffer, if any.
function M.get_client(bufnr)
  local clients = vim.lsp.get_clients({ name = "cairn", bufnr = bufnr or 0 })
  if #clients == 0 then
    clients = vim.lsp.get_clients({ name = "cairn" })
  end
  return clients[1]
end

-- Cairn diagnostics under the cursor: they carry the entity and the verdict ids.
local function cursor_diagnostics(bufnr)
  local row, col = unpack(vim.api.nvim_win_get_cursor(0))
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr, { lnum = row - 1 })) do
    if d.source == "cairn" and col >= d.col and (d.end_col == nil or col <= d.end_col) then
      table.insert(found, d)
    end
  end
  if #found == 0 then
    for _, d in ipairs(vim.diagnostic.get(bufnr, { lnum = row - 1 })) do
      if d.source == "cairn" then
        table.insert(found, d)
      end
    end
  end
  return found
end

local function lsp_data(diagnostic)
  local lsp = diagnostic.user_data and diagnostic.user_data.lsp
  return (lsp and lsp.data) or {}
end

--- What the server says is under the cursor: its entity plus any open verdict ids.
function M.cursor_context(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local ctx = {}
  local diags = cursor_diagnostics(bufnr)
  if diags[1] then
    local data = lsp_data(diags[1])
    ctx.entity = data.entity
    -- cairn.findings puts the verdict ids in `data`; the full id is also the `code`.
    if type(data.verdict_ids) == "table" then
      ctx.verdict = data.verdict_ids[1]
    end
    ctx.verdict = ctx.verdict or diags[1].code
  end
  if ctx.entity then
    return ctx
  end
  -- No diagnostic here: the code actions on the symbol name its entity.
  local client = M.get_client(bufnr)
  if not client then
    return ctx
  end
  local params = vim.lsp.util.make_range_params(0, client.offset_encoding or "utf-16")
  params.context = { diagnostics = {}, triggerKind = 1 }
  local resp = client_request_sync(client, "textDocument/codeAction", params, 2000, bufnr)
  for _, action in ipairs((resp and resp.result) or {}) do
    local command = action.command
    if type(command) == "string" then
      command = action
    end
    if type(command) == "table" and type(command.command) == "string" then
      local arg = command.arguments and command.arguments[1]
      if command.command:match("^cairn%.") and type(arg) == "table" and arg.entity then
        ctx.entity = arg.entity
        break
      end
    end
  end
  return ctx
end

-- Ask for each missing field in turn; `done(args)` runs only if the user answered them all.
local function fill(args, steps, done)
  local i = 0
  local function next_step()
    i = i + 1
    local step = steps[i]
    if not step then
      return done(args)
    end
    if args[step.key] ~= nil and args[step.key] ~= "" then
      return next_step()
    end
    local function answer(value)
      if value == nil then
        return notify("cancelled", vim.log.levels.WARN)
      end
      value = vim.trim(value)
      if value == "" then
        if step.optional then
          return next_step()
        end
        return notify("cancelled: " .. step.key .. " is required", vim.log.levels.WARN)
      end
      args[step.key] = value
      next_step()
    end
    if step.choices then
      vim.ui.select(step.choices, { prompt = step.prompt }, answer)
    else
      vim.ui.input({ prompt = step.prompt, default = step.default }, answer)
    end
  end
  next_step()
end

-- What each server command needs from the user before it is sent. An empty reason is
-- allowed: the server then opens a markdown draft for a longer write-up.
M.steps = {
  ["cairn.log"] = {
    { key = "entity", prompt = "Entity: " },
    { key = "type", prompt = "Decision type", choices = M.log_types },
    { key = "reason", prompt = "Why? (empty: open a draft) ", optional = true },
  },
  ["cairn.reject"] = {
    { key = "entity", prompt = "Entity: " },
    { key = "alternative", prompt = "Rejected alternative: " },
    { key = "reason", prompt = "Why was it rejected? (empty: open a draft) ", optional = true },
  },
  ["cairn.revert"] = {
    { key = "entity", prompt = "Entity: " },
    { key = "reason", prompt = "Why was it reverted? (empty: open a draft) ", optional = true },
  },
  ["cairn.supersede"] = {
    { key = "entity", prompt = "Entity: " },
    { key = "reason", prompt = "Why re-open it? (empty: open a draft) ", optional = true },
  },
  ["cairn.history"] = {
    { key = "entity", prompt = "Entity: " },
  },
}

local function show_text(title, text)
  local lines = vim.split(text, "\n", { plain = true })
  vim.cmd("botright new")
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].swapfile = false
  pcall(vim.api.nvim_buf_set_name, buf, title)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].filetype = "markdown"
  vim.bo[buf].modifiable = false
end

-- A server answer as text: a string, a {markdown|text|message} object, or a list of events.
local function result_text(result)
  if type(result) == "string" then
    return result
  end
  if type(result) ~= "table" then
    return nil
  end
  for _, key in ipairs({ "markdown", "text", "message" }) do
    if type(result[key]) == "string" then
      return result[key]
    end
  end
  local events = vim.islist(result) and result or result.events
  if type(events) == "table" then
    local out = {}
    for _, e in ipairs(events) do
      local when = (e.occurred_at or e.recorded_at or ""):sub(1, 10)
      local line = ("- %s **%s** `%s`"):format(when, e.type or "?", e.entity or "")
      if e.alternative and e.alternative ~= vim.NIL then
        line = line .. (" (alternative: %s)"):format(e.alternative)
      end
      if e.reasoning and e.reasoning ~= vim.NIL then
        line = line .. ": " .. e.reasoning
      end
      table.insert(out, line)
    end
    return #out > 0 and table.concat(out, "\n") or "No decisions recorded."
  end
  return nil
end

--- Send a Cairn command to the server with a complete argument object.
function M.execute(name, args, bufnr, client)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  client = client or M.get_client(bufnr)
  if not client then
    return notify("no Cairn language server is attached (see :checkhealth cairn)", vim.log.levels.ERROR)
  end
  local params = { command = name, arguments = { args } }
  client_request(client, "workspace/executeCommand", params, function(err, result)
    if err then
      return notify(name .. " failed: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    end
    if name == "cairn.history" then
      if type(result) == "table" and result.shown == true then
        return -- the server already opened it (window/showDocument)
      end
      local text = result_text(result)
      if text then
        show_text("cairn://history/" .. (args.entity or ""), text)
      end
      return
    end
    local id = type(result) == "table" and (result.id or (result.event and result.event.id)) or nil
    local msg = ("%s recorded for %s"):format(name:gsub("^cairn%.", ""), args.entity or "?")
    if type(id) == "string" then
      msg = msg .. " (" .. id:sub(1, 12) .. ")"
    end
    notify(msg)
  end, bufnr)
end

--- Prompt for whatever `args` lacks, then run the command.
function M.run(name, args, bufnr, client)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  args = vim.deepcopy(args or {})
  local steps = M.steps[name]
  if not steps then
    return notify("unknown command " .. name, vim.log.levels.ERROR)
  end
  fill(args, steps, function(filled)
    M.execute(name, filled, bufnr, client)
  end)
end

-- `:CairnX [entity]`: the entity defaults to the one under the cursor.
local function user_command(name, opts)
  local bufnr = vim.api.nvim_get_current_buf()
  local args = {}
  local ctx = M.cursor_context(bufnr)
  if opts.args and opts.args ~= "" then
    args.entity = opts.args
  else
    args.entity = ctx.entity
  end
  if name == "cairn.supersede" and ctx.verdict and (args.entity == ctx.entity) then
    args.of = ctx.verdict
  end
  M.run(name, args, bufnr)
end

M.user_commands = {
  CairnLog = "cairn.log",
  CairnReject = "cairn.reject",
  CairnRevert = "cairn.revert",
  CairnSupersede = "cairn.supersede",
  CairnHistory = "cairn.history",
}

local function register_commands()
  for cmd, name in pairs(M.user_commands) do
    vim.api.nvim_create_user_command(cmd, function(opts)
      user_command(name, opts)
    end, { nargs = "?", desc = "Cairn: " .. name:gsub("^cairn%.", "") .. " (prompts for the reasoning)" })
  end
  -- Code actions carry the command; collect the reasoning here before the server sees it.
  for _, name in pairs(M.user_commands) do
    vim.lsp.commands[name] = function(command, ctx)
      local client = vim.lsp.get_client_by_id(ctx.client_id)
      local arg = (command.arguments and command.arguments[1]) or {}
      M.run(name, arg, ctx.bufnr, client)
    end
  end
end

--- Configure and register the server. Safe to call more than once.
function M.setup(opts)
  if vim.fn.has("nvim-0.10") == 0 then
    return notify("Neovim 0.10 or newer is required", vim.log.levels.ERROR)
  end
  opts = opts or {}
  M.config = vim.tbl_deep_extend("force", vim.deepcopy(defaults), opts)
  -- Lists replace the defaults instead of being merged index by index.
  for _, key in ipairs({ "cmd", "filetypes" }) do
    if opts[key] ~= nil then
      M.config[key] = opts[key]
    end
  end
  if type(M.config.cmd) == "string" then
    M.config.cmd = { M.config.cmd, "serve" }
  end
  register_server()
  register_commands()
  enable_codelens(vim.api.nvim_create_augroup("cairn_codelens", { clear = true }))
  M._setup_done = true
end

return M
