// headless_imgui.h: a real Dear ImGui context with no backend, for driving
// widgets frame by frame and inspecting what they draw.
#pragma once

#include <functional>

#include "imgui.h"

namespace tvis::widgets::test {

class HeadlessImGui {
public:
    explicit HeadlessImGui(ImVec2 display = ImVec2(1280.0f, 800.0f)) {
        ctx_ = ImGui::CreateContext();
        ImGuiIO& io = ImGui::GetIO();
        io.DisplaySize = display;
        io.DeltaTime = 1.0f / 60.0f;
        io.IniFilename = nullptr;
        io.LogFilename = nullptr;
        io.KeyMap[ImGuiKey_C] = 'C';
        unsigned char* pixels = nullptr;
        int w = 0, h = 0;
        io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
        io.Fonts->SetTexID(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(1)));
        io.MousePos = ImVec2(-1.0f, -1.0f);
    }
    ~HeadlessImGui() { ImGui::DestroyContext(ctx_); }
    HeadlessImGui(const HeadlessImGui&) = delete;
    HeadlessImGui& operator=(const HeadlessImGui&) = delete;

    // One frame with a full-screen, undecorated window "test" holding body().
    // Returns the window's draw list of this frame (valid until the next frame).
    ImDrawList* frame(const std::function<void()>& body) {
        ImGui::NewFrame();
        ImGui::SetNextWindowPos(ImVec2(0, 0));
        ImGui::SetNextWindowSize(ImGui::GetIO().DisplaySize);
        ImGui::Begin("test", nullptr,
                     ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings);
        ImDrawList* dl = ImGui::GetWindowDrawList();
        body();
        ImGui::End();
        ImGui::Render();
        // Mouse events are edges: clear per-frame inputs after each frame.
        ImGuiIO& io = ImGui::GetIO();
        io.MouseWheel = 0.0f;
        return dl;
    }

    ImGuiIO& io() { return ImGui::GetIO(); }

private:
    ImGuiContext* ctx_ = nullptr;
};

}  // namespace tvis::widgets::test
