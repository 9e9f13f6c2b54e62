#pragma once

/// @file
/// The rules soma ships, each with its defaults argued in docs/health.md.
///
/// | rule              | subject | looks at    | condition (defaults)                                        |
/// | ----------------- | ------- | ----------- | ----------------------------------------------------------- |
/// | quiet_machine     | machine | readings    | quiet_s over 5 x its reporting interval, for 5 s            |
/// | busy_machine      | machine | readings    | busy over 0.9 in every reading, for 30 s                    |
/// | memory_machine    | machine | readings    | memory over 0.9 in every reading, for 30 s                  |
/// | not_worth_sending | host    | fact blobs  | waiting_us over 10 x took_us over the run's last 100 forwards (10 trips at least) |
/// | slow_node         | node    | fact blobs  | mean_us over 3 x its median in earlier runs of the same graph |
/// | broke_forwards    | run     | records     | broke forwards among the last 100 over 0                    |
/// | stalled_run       | run     | records     | no forward for over 10 x its median interval (1 s at least), its recorder not closed |
/// | non_finite        | run     | records     | a summarised value not finite in over 0 forwards in a row   |
/// | stale_claim       | trial   | trials, readings | its claimant's quiet_s over 30 s                       |
/// | silent_store      | store   | writes, clock | the newest write (a reading, a forward) over 300 s behind this reader's clock |

#include <memory>
#include <vector>

#include "soma/export.hpp"
#include "soma/health/rule.hpp"

SOMA_API_BEGIN

namespace soma::health {

[[nodiscard]] std::unique_ptr<rule> quiet_machine();
[[nodiscard]] std::unique_ptr<rule> busy_machine();
[[nodiscard]] std::unique_ptr<rule> memory_machine();
[[nodiscard]] std::unique_ptr<rule> not_worth_sending();
[[nodiscard]] std::unique_ptr<rule> slow_node();
[[nodiscard]] std::unique_ptr<rule> broke_forwards();
[[nodiscard]] std::unique_ptr<rule> stalled_run();
[[nodiscard]] std::unique_ptr<rule> non_finite();
[[nodiscard]] std::unique_ptr<rule> stale_claim();
[[nodiscard]] std::unique_ptr<rule> silent_store();

} // namespace soma::health

SOMA_API_END
