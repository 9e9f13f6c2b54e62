#pragma once

/// @file
/// What libsoma, soma's one library, exports. Its layers are built with
/// hidden symbols (`-fvisibility=hidden -fvisibility-inlines-hidden`); every
/// installed header puts its declarations between `SOMA_API_BEGIN` and
/// `SOMA_API_END`, so the API, and what its templates call, is exported. A
/// private header marks `SOMA_API_EXPORT` only what a program linked to
/// libsoma calls (soma-node, and the few tests that load a node library);
/// everything else stays inside libsoma. `tests/install` counts what is
/// exported (docs/architecture.md, "What a library exports").

#if defined(__GNUC__) || defined(__clang__)
/// Begins declarations a library exports (everything up to SOMA_API_END).
#define SOMA_API_BEGIN _Pragma("GCC visibility push(default)")
/// Ends what SOMA_API_BEGIN began.
#define SOMA_API_END _Pragma("GCC visibility pop")
/// Exports one declaration made outside an installed header's SOMA_API_BEGIN.
#define SOMA_API_EXPORT __attribute__((visibility("default")))
/// Keeps the classes an installed header only names (declares, not
/// defines) inside libsoma, up to SOMA_API_HIDDEN_END: named between
/// SOMA_API_BEGIN and SOMA_API_END, they would be exported.
#define SOMA_API_HIDDEN_BEGIN _Pragma("GCC visibility push(hidden)")
/// Ends what SOMA_API_HIDDEN_BEGIN began.
#define SOMA_API_HIDDEN_END _Pragma("GCC visibility pop")
/// Keeps one member function of an exported class, or one function an
/// installed header declares, inside libsoma: one that nothing outside it
/// calls (no installed template does).
#define SOMA_API_LOCAL __attribute__((visibility("hidden")))
#else
#define SOMA_API_BEGIN
#define SOMA_API_END
#define SOMA_API_EXPORT
#define SOMA_API_HIDDEN_BEGIN
#define SOMA_API_HIDDEN_END
#define SOMA_API_LOCAL
#endif
