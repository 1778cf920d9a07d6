// plot_view_storage.h (private): doubles in ImGui's per-window state storage
// (which only holds 32-bit ints and floats), keyed by names under the current ID.
#pragma once

#include <cstdint>
#include <cstring>

#include "imgui.h"

namespace tvis::widgets::detail {

inline void store_double(ImGuiStorage* st, const char* name, double v) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    ImGui::PushID(name);
    st->SetInt(ImGui::GetID("lo"), static_cast<int>(static_cast<std::uint32_t>(bits)));
    st->SetInt(ImGui::GetID("hi"), static_cast<int>(static_cast<std::uint32_t>(bits >> 32)));
    ImGui::PopID();
}

inline double load_double(ImGuiStorage* st, const char* name) {
    ImGui::PushID(name);
    const auto lo = static_cast<std::uint32_t>(st->GetInt(ImGui::GetID("lo"), 0));
    const auto hi = static_cast<std::uint32_t>(st->GetInt(ImGui::GetID("hi"), 0));
    ImGui::PopID();
    const std::uint64_t bits = (static_cast<std::uint64_t>(hi) << 32) | lo;
    double v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
}

}  // namespace tvis::widgets::detail
