// checksums.h (internal): whether the read half enforces checksums.
// Always, except in a libFuzzer build (FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION,
// the convention libFuzzer users share), where mismatches are ignored so the
// fuzzer can reach the zstd, FlatBuffer and summary code behind them.
#pragma once

namespace tvis::format {

#if defined(FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION)
inline constexpr bool kEnforceChecksums = false;
#else
inline constexpr bool kEnforceChecksums = true;
#endif

}  // namespace tvis::format
