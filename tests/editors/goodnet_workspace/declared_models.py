from torch import nn


# tensorviz: input=2,4
class Declared(nn.Module):
    """The file's one model class, with no profile: its input declaration is the example."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return self.fc(x)
